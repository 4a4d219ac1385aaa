// API reference docs from the TSDoc, one module per package entry, as Markdown in docs/api/ (generated, not
// committed: `npm run docs`). Entries come from package.json "exports" (scripts/entries.mjs).
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
