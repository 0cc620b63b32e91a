// The image's HEALTHCHECK: exit 0 when the server in this container answers 200 on /health
// (its store opened, its vocabularies loaded), 1 otherwise. Run by the container engine with
// the image's Node.js, so the image needs no curl.
const port = process.env.PORT || '8080';
try {
  const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4000) });
  await response.arrayBuffer();
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
