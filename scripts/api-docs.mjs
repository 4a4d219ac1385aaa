// API reference docs from the TSDoc, one module per package entry, as Markdown in docs/api/ (generated and
// committed, so the reference is in the repo; `npm run docs` refreshes it and CI fails when it is stale).
// Entries come from package.json "exports" (scripts/entries.mjs). No "Defined in" source lines: they would
// change with every edit anywhere in a file, and the reference should change only when the API or its TSDoc does.
import { relative, resolve } from "node:path";
import { Application } from "typedoc";
import { entries, root } from "./entries.mjs";

const app = await Application.bootstrapWithPlugins({
	entryPoints: entries.map((entry) => entry.source),
	tsconfig: resolve(root, "tsconfig.build.json"),
	plugin: ["typedoc-plugin-markdown"],
	out: resolve(root, "docs/api"),
	readme: "none",
	excludePrivate: true,
	excludeInternal: true,
	disableSources: true,
});
const project = await app.convert();
if (!project) {
	console.error("TypeDoc could not convert the entries");
	process.exit(1);
}
// Name each module after the specifier users import (`capstan/providers`), not its source file.
for (const child of project.children ?? []) {
	const file = child.sources?.[0]?.fileName;
	const entry = entries.find((candidate) => relative(root, candidate.source) === file);
	if (entry) child.name = entry.specifier;
}
await app.generateOutputs(project);
console.log(`docs/api: ${entries.length} entries`);
