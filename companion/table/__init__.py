"""The live table: camera and tile bag feeding the rules, one session shared with the dashboard."""
