import sys

from devkb.bench.harness import main

sys.exit(main())
