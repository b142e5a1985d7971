"""Everything with I/O: camera sources, the live runtime, the SQLite store, the web server, the CLI."""
