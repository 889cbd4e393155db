import gc
import sys

from scheduler_core.cli import main

code = main()
# The process ends here: the collector's pass at exit over what the command built (a 5,000-node
# scenario, its snapshot, a capacity question's runs: about a million objects, 0.3 s of CPU)
# would free nothing the exit needs freed, so it is skipped (frozen objects are not scanned).
gc.freeze()
sys.exit(code)
