import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { splitIntent, toToolSpecs, tracesIntent } from "../../src/tools/specs.js";
import type { AgentTool } from "../../src/tools/types.js";

function tool(name: string, parameters: AgentTool["parameters"], extra: Partial<AgentTool> = {}): AgentTool {
	return { name, description: `${name} tool`, parameters, execute: async () => ({ content: [] }), ...extra };
}

describe("toToolSpecs", () => {
	const read = tool("read", Type.Object({ path: Type.String() }));
	const search = tool("search", z.object({ query: z.string() }));
	const raw = tool("raw", { type: "object", properties: { a: { type: "number" } }, required: ["a"] });

	it("without tracing, the wire schema is the tool's own schema", () => {
		const [spec] = toToolSpecs([raw], { intentTracing: false });
		expect(spec).toEqual({ name: "raw", description: "raw tool", parameters: raw.parameters });
	});

	it("adds a required `i` first in properties and required (SPEC C5)", () => {
		const specs = toToolSpecs([read, search, raw], { intentTracing: true });
		for (const spec of specs) {
			expect(Object.keys(spec.parameters.properties as object)[0]).toBe("i");
			expect((spec.parameters.required as string[])[0]).toBe("i");
			expect((spec.parameters.properties as Record<string, { type: string }>).i?.type).toBe("string");
		}
		expect(specs[2]?.parameters.required).toEqual(["i", "a"]);
		expect(raw.parameters).toEqual({
			type: "object",
			properties: { a: { type: "number" } },
			required: ["a"],
		});
	});

	it("honours the per-tool opt-out and tools that use `i` themselves (SPEC C5)", () => {
		const optedOut = tool("quiet", { type: "object", properties: {} }, { intent: false });
		const ownI = tool("own", { type: "object", properties: { i: { type: "number" } } });
		const specs = toToolSpecs([optedOut, ownI], { intentTracing: true });
		expect(specs[0]?.parameters).toBe(optedOut.parameters);
		expect(specs[1]?.parameters).toBe(ownI.parameters);
		expect(tracesIntent(ownI)).toBe(false);
	});

	it("returns the same spec objects for the same tools (prompt-cache stability)", () => {
		const first = toToolSpecs([read, search], { intentTracing: true });
		const second = toToolSpecs([read, search], { intentTracing: true });
		expect(second[0]).toBe(first[0]);
		expect(second[1]).toBe(first[1]);
		expect(toToolSpecs([read], { intentTracing: false })[0]).toBe(
			toToolSpecs([read], { intentTracing: false })[0],
		);
	});

	it("rebuilds when the tool's description changes", () => {
		const mutable = tool("m", { type: "object" });
		const before = toToolSpecs([mutable], { intentTracing: false })[0];
		mutable.description = "new";
		const after = toToolSpecs([mutable], { intentTracing: false })[0];
		expect(after).not.toBe(before);
		expect(after?.description).toBe("new");
	});
});

describe("splitIntent", () => {
	it("removes `i` without mutating the input (SPEC C5)", () => {
		const args = { i: "look up the weather", city: "Oslo" };
		expect(splitIntent(args)).toEqual({ intent: "look up the weather", args: { city: "Oslo" } });
		expect(args).toEqual({ i: "look up the weather", city: "Oslo" });
	});

	it("keeps args as they are when there is no intent", () => {
		const args = { city: "Oslo" };
		expect(splitIntent(args).args).toBe(args);
		expect(splitIntent(args).intent).toBeUndefined();
	});

	it("drops a non-string intent without reporting it", () => {
		expect(splitIntent({ i: 3, a: 1 })).toEqual({ args: { a: 1 } });
	});
});
