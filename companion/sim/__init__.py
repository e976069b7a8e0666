"""A synthetic table: positions drawn as the overhead camera would see them, with ground truth."""
