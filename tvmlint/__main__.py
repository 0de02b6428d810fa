import sys

from tvmlint.cli import main

sys.exit(main())
