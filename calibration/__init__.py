"""Camera and colour calibration for the overhead camera, and printable marker sheets."""
