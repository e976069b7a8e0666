"""The tablet dashboard (Flask app factory and blueprints)."""
