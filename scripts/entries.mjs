// The package entries, read from package.json "exports": the one list the API reports and the API docs use,
// so adding an entry to "exports" adds it to both.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The parsed package.json. */
export const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8"));

/**
 * Every entry with types: its specifier (`capstan/providers`), report name (`capstan-providers`), built
 * declarations (`dist/providers.d.ts`) and source (`src/providers.ts`).
 */
export const entries = Object.entries(pkg.exports)
	.filter(([, target]) => typeof target?.types === "string")
	.map(([entry, target]) => ({
		specifier: entry === "." ? pkg.name : `${pkg.name}/${entry.slice(2)}`,
		reportName: entry === "." ? pkg.name : `${pkg.name}-${entry.slice(2).replaceAll("/", "-")}`,
		dts: resolve(root, target.types),
		source: resolve(root, target.types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts")),
	}));
