#!/bin/sh
# Redis (Debian's redis-server) as ToxGraph's job queue and coordination, in the
# toxgraph-services image: on the stack's own network only (no port published), its append-only
# file in /var/lib/toxgraph/redis (the volume), never evicting keys (BullMQ's jobs are keys).
set -eu
mkdir -p /var/lib/toxgraph/redis
exec redis-server --bind 0.0.0.0 --port 6379 --protected-mode no --dir /var/lib/toxgraph/redis \
  --appendonly yes --maxmemory-policy noeviction
