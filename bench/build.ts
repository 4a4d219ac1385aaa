/**
 * What every bench entry needs before it starts a worker: capstan's `dist/` (the package a user installs)
 * and the workers transpiled to plain JavaScript (no TypeScript loader in a measured process).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..");

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
		if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
	return newest;
}

/** Rebuild capstan's `dist/` when it is older than `src/` (or missing); `noBuild` keeps an existing one. */
function ensureCapstanBuilt(noBuild: boolean): void {
	let built = 0;
	try {
		built = statSync(join(root, "dist", "index.js")).mtimeMs;
	} catch {}
	if (noBuild && built > 0) return;
	if (built > newestMtime(join(root, "src"))) return;
	console.error("building capstan (dist/ is older than src/)…");
	const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
	if (result.status !== 0) throw new Error("npm run build failed");
}

/** Transpile `src/` to `dist/`: the workers run as plain JavaScript. */
export async function transpileWorkers(): Promise<void> {
	const src = join(here, "src");
	const entryPoints = readdirSync(src, { recursive: true, encoding: "utf8" })
		.filter((f) => f.endsWith(".ts"))
		.map((f) => join(src, f));
	await build({ entryPoints, outdir: join(here, "dist"), platform: "node", format: "esm", target: "node20" });
}

/** Both steps, before any worker starts: `dist/` current (unless `noBuild` and one exists), workers transpiled. */
export async function prepareWorkers(noBuild: boolean): Promise<void> {
	ensureCapstanBuilt(noBuild);
	await transpileWorkers();
}
