"""The price catalogue, apart from the engine: its rows and their schema (rows.py), the loader
that reads and checks pricing/data/ (loader.py, which refuses a folder of another schema
version), the SkyPilot import that refreshes cloud prices (skypilot_import.py, its guards in
skypilot_guards.py), and which figures of a comparison are stale (freshness.py)."""
