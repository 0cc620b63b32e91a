// `npm run audit`: `npm audit --omit=dev` with a verdict. Fails on any high or critical finding
// in the packages the server runs on; says so plainly when the registry's advisory endpoint
// cannot be reached (a mirror that serves packages only answers 405), instead of passing silently.
import { spawnSync } from 'node:child_process';

const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8' });
let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  console.log(`npm audit gave no report: ${(run.stderr || run.stdout).trim().slice(0, 300)}`);
  process.exit(0);
}
if (!report.metadata) {
  console.log(`npm audit: the advisory endpoint could not be asked (${report.statusCode ?? ''} ${report.message ?? report.error?.summary ?? 'no answer'}); no verdict from this network`);
  process.exit(0);
}
const v = report.metadata.vulnerabilities;
console.log(`npm audit --omit=dev: ${v.critical} critical, ${v.high} high, ${v.moderate} moderate, ${v.low} low`);
for (const [name, finding] of Object.entries(report.vulnerabilities ?? {})) {
  if (finding.severity === 'high' || finding.severity === 'critical') console.log(`  ${finding.severity}: ${name} ${finding.range}`);
}
process.exit(v.critical + v.high > 0 ? 1 : 0);
