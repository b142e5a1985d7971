"""`python -m device` runs the same command line as the `dicetable` console script."""

from device.cli import main

raise SystemExit(main())
