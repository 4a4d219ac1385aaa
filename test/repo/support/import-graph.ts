// The static import graph of `src/`, read with the TypeScript parser (already a dev dependency) so the
// layering tests need no extra tool: every relative `import`/`export … from` of every module, with whether it
// survives compilation (a runtime edge) or is erased (`import type`, `export type`), plus every dynamic
// `import("./…")`, which is a dependency but loads nothing until it runs.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** One import of one module: the imported file (relative to `src/`) and how it is imported. */
export interface ImportEdge {
	to: string;
	/** Erased at build time: loads nothing. */
	typeOnly: boolean;
	/** A dynamic `import()`: loads the module only when it runs. */
	dynamic: boolean;
}

/** Module path (relative to `src/`, `/`-separated, `.ts`) → its imports of other `src/` modules. */
export type ImportGraph = Map<string, ImportEdge[]>;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
	});
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
	// Under `verbatimModuleSyntax` only a whole-declaration `import type`/`export type` is erased;
	// `import { type A }` still loads the module.
	if (ts.isExportDeclaration(node)) return node.isTypeOnly;
	return node.importClause?.isTypeOnly === true;
}

/** Build the graph of every `.ts` module under `srcDir`. */
export function buildImportGraph(srcDir: string): ImportGraph {
	const graph: ImportGraph = new Map();
	for (const file of sourceFiles(srcDir)) {
		const text = readFileSync(file, "utf8");
		const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
		const edges: ImportEdge[] = [];
		const add = (text: string, typeOnly: boolean, dynamic: boolean): void => {
			if (!text.startsWith(".")) return; // a package, not a module of ours
			const target = resolve(dirname(file), text.replace(/\.js$/, ".ts"));
			edges.push({ to: toKey(srcDir, target), typeOnly, dynamic });
		};
		const visit = (node: ts.Node): void => {
			if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
				if (ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, isTypeOnly(node), false);
			} else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
				const [specifier] = node.arguments;
				if (specifier && ts.isStringLiteralLike(specifier)) add(specifier.text, false, true);
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
		graph.set(toKey(srcDir, file), edges);
	}
	return graph;
}

function toKey(srcDir: string, file: string): string {
	return relative(srcDir, file).split("\\").join("/");
}

/** The folder of a module: its first path segment under `src/` (`loop/run.ts` → `loop`; `index.ts` → `.`). */
export function folderOf(module: string): string {
	const slash = module.indexOf("/");
	return slash < 0 ? "." : module.slice(0, slash);
}

/** Every module reachable from `entry` through runtime edges only: what importing it loads. */
export function runtimeClosure(graph: ImportGraph, entry: string): Set<string> {
	const seen = new Set<string>([entry]);
	const stack = [entry];
	for (let module = stack.pop(); module !== undefined; module = stack.pop()) {
		for (const edge of graph.get(module) ?? []) {
			if (edge.typeOnly || edge.dynamic || seen.has(edge.to)) continue;
			seen.add(edge.to);
			stack.push(edge.to);
		}
	}
	return seen;
}

/**
 * Strongly connected components with more than one node (Tarjan), i.e. the cycles, each sorted. `edges`
 * maps a node to its successors.
 */
export function cycles(edges: Map<string, Set<string>>): string[][] {
	let index = 0;
	const indices = new Map<string, number>();
	const low = new Map<string, number>();
	const onStack = new Set<string>();
	const stack: string[] = [];
	const found: string[][] = [];
	const visit = (node: string): void => {
		indices.set(node, index);
		low.set(node, index);
		index++;
		stack.push(node);
		onStack.add(node);
		for (const next of edges.get(node) ?? []) {
			if (!indices.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
			} else if (onStack.has(next)) {
				low.set(node, Math.min(low.get(node) as number, indices.get(next) as number));
			}
		}
		if (low.get(node) === indices.get(node)) {
			const component: string[] = [];
			let member: string | undefined;
			do {
				member = stack.pop() as string;
				onStack.delete(member);
				component.push(member);
			} while (member !== node);
			if (component.length > 1) found.push(component.sort());
		}
	};
	for (const node of edges.keys()) if (!indices.has(node)) visit(node);
	return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/**
 * Module-level edges that load code (no type-only or dynamic import): a cycle of these makes module
 * initialisation order matter. Type references between modules of one folder are fine; between folders the
 * folder rule catches them.
 */
export function runtimeFileEdges(graph: ImportGraph): Map<string, Set<string>> {
	const edges = new Map<string, Set<string>>();
	for (const [from, imports] of graph)
		edges.set(
			from,
			new Set(imports.filter((edge) => !edge.typeOnly && !edge.dynamic).map((edge) => edge.to)),
		);
	return edges;
}

/** Folder-level edges: `a → b` when a module in folder `a` imports one in folder `b` (root entry files excluded). */
export function folderEdges(graph: ImportGraph): Map<string, Set<string>> {
	const edges = new Map<string, Set<string>>();
	for (const [from, imports] of graph) {
		const source = folderOf(from);
		if (source === ".") continue; // the package entry files re-export folders; they are the top layer
		const targets = edges.get(source) ?? new Set<string>();
		for (const edge of imports) {
			const target = folderOf(edge.to);
			if (target !== source) targets.add(target);
		}
		edges.set(source, targets);
	}
	return edges;
}
