// The licenses of every package bundled into codemirror.mjs, one after another.
import { readFileSync, readdirSync, existsSync } from "node:fs";
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")).packages;
const bundled = Object.keys(lock).filter((p) => p.startsWith("node_modules/") && !lock[p].dev).sort();
for (const dir of bundled) {
  const file = readdirSync(dir).find((f) => /^licen[sc]e/i.test(f));
  const text = file && existsSync(`${dir}/${file}`) ? readFileSync(`${dir}/${file}`, "utf8") : `(license: ${lock[dir].license})`;
  console.log(`==== ${dir.slice("node_modules/".length)} ${lock[dir].version} (${lock[dir].license})\n\n${text.trim()}\n`);
}
