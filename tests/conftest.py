"""Collection: ``tests/bots/`` holds bots of users' own for the arena's tests (one of them does
not even import, on purpose): they are played from their files, never collected."""
collect_ignore_glob = ["bots/*"]
