"""Everything with I/O: camera sources, live runtime, SQLite store, web server, CLI."""
