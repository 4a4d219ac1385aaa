// The folder list is the architecture (STYLE 1): dependencies between folders of `src/` only point one way,
// so each folder can be read, tested and changed without the ones above it.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import {
	buildImportGraph,
	cycles,
	folderEdges,
	runtimeClosure,
	runtimeFileEdges,
} from "./support/import-graph.js";

const graph = buildImportGraph(resolve(REPO_ROOT, "src"));

describe("the import graph of src/", () => {
	it("is read from every module", () => {
		// Guards the test itself: an empty graph would make every assertion below vacuous.
		expect(graph.size).toBeGreaterThan(50);
		expect(graph.get("loop/run.ts")?.some((edge) => edge.to === "loop/emit.ts")).toBe(true);
	});

	it("has no cycle between folders (type-only and dynamic imports count)", () => {
		expect(cycles(folderEdges(graph))).toEqual([]);
	});

	it("has no runtime import cycle between modules", () => {
		expect(cycles(runtimeFileEdges(graph))).toEqual([]);
	});

	it("keeps core at the bottom: it imports no other folder", () => {
		expect([...(folderEdges(graph).get("core") ?? [])]).toEqual([]);
	});

	it.each(["index.ts", "testing/index.ts", "otel.ts"])(
		"importing %s loads no provider module (the registry default is loaded lazily)",
		(entry) => {
			const loaded = [...runtimeClosure(graph, entry)];
			expect(loaded.length).toBeGreaterThan(1);
			expect(loaded.filter((module) => module.startsWith("providers/"))).toEqual([]);
		},
	);

	it("finds a cycle when there is one (the detector can fail)", () => {
		const edges = new Map([
			["a", new Set(["b"])],
			["b", new Set(["c"])],
			["c", new Set(["a"])],
			["d", new Set(["a"])],
		]);
		expect(cycles(edges)).toEqual([["a", "b", "c"]]);
	});
});
