// The image's HEALTHCHECK: exit 0 when the server in this container answers 200 on /health
// (its store opened, its vocabularies loaded), 1 otherwise. Run by the container engine with
// the image's Node.js, so the image needs no curl.
import { readFileSync } from 'node:fs';

// A worker (`toxgraph worker`, the container's command) answers no HTTP: it is healthy while it
// runs, and a worker that stops ends its container.
if (readFileSync('/proc/1/cmdline', 'utf8').split('\0').includes('worker')) process.exit(0);
const port = process.env.PORT || '8080';
try {
  const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4000) });
  await response.arrayBuffer();
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
