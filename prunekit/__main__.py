from prunekit.cli import main

raise SystemExit(main())
