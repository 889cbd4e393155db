import sys

from scheduler_core.cli import main

sys.exit(main())
