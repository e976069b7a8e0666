"""Host side of the tile-bag RFID reader: drivers, port handling, tag registry, events."""
