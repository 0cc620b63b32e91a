// The first module the server loads (bin/toxgraph-server: `node --import ./src/node-version-check.mjs`).
// Plain JavaScript, so that on an older Node.js the server stops here with one line naming the
// Node.js it needs, rather than with an error about loading TypeScript.
import { readFileSync } from 'node:fs';

/**
 * Whether `version` (as in `process.versions.node`) is in `range`, the form `engines.node` takes
 * in package.json: caret ranges joined by `||` (`^24.9.0 || ^26.10.0`).
 * @param {string} version
 * @param {string} range
 * @returns {boolean}
 */
export function nodeVersionSatisfies(version, range) {
  // a pre-release (26.10.0-pre) counts as its release
  const parse = (v) =>
    v
      .trim()
      .replace(/^[v^]/, '')
      .split('.')
      .map((part) => Number.parseInt(part, 10));
  const [major, minor, patch] = parse(version);
  return range.split('||').some((caret) => {
    const [wantMajor, wantMinor = 0, wantPatch = 0] = parse(caret);
    return major === wantMajor && (minor > wantMinor || (minor === wantMinor && patch >= wantPatch));
  });
}

/** The `engines.node` range of package.json: the Node.js versions the project is tested on. */
export const SUPPORTED_NODE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;

if (!nodeVersionSatisfies(process.versions.node, SUPPORTED_NODE)) {
  process.stderr.write(`toxgraph: needs Node.js ${SUPPORTED_NODE}, but this is Node.js ${process.versions.node}; \`npm install\` installs it for the project (\`npm start\` runs on it)\n`);
  process.exit(1);
}
