import sys

from devkb_devtools.bench.harness import main

sys.exit(main())
