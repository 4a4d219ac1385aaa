// docs/behaviour.md is the contract the tests pin: every rule id cited in the repo is defined there, every
// rule there is cited by a test, and every link into it from the README lands on an anchor.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../providers/support/fixtures.js";

const DOC = readFileSync(resolve(REPO_ROOT, "docs/behaviour.md"), "utf8");

/** Rule definitions: `<a id="t10"></a>**T10` — the anchor and the bold id must agree. */
function definedRules(doc: string): Map<string, string> {
	const rules = new Map<string, string>();
	for (const match of doc.matchAll(/<a id="([a-z]\d+)"><\/a>\*\*([A-Z]\d+)\b/g))
		rules.set(match[2] as string, match[1] as string);
	return rules;
}

/** Every anchor a link may target: explicit `<a id>`s and GitHub's heading slugs. */
function anchors(doc: string): Set<string> {
	const ids = new Set([...doc.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] as string));
	for (const [, heading] of doc.matchAll(/^#{1,6}\s+(.+)$/gm)) {
		const slug = (heading as string)
			.trim()
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s-]/gu, "")
			.replace(/\s/g, "-");
		ids.add(slug);
	}
	return ids;
}

interface Citation {
	id: string;
	file: string;
	/** True for an id written out; false for one inside a range such as `I1–I4`. */
	explicit: boolean;
}

/**
 * Rule ids cited after the word SPEC or rule: one id, a list (`T10, T11`, `A3/A7`, `T4 and T5`) or a range
 * (`I1–I4`, whose inner ids count as cited but not as written out).
 */
function citations(text: string, file: string): Citation[] {
	const found: Citation[] = [];
	const list = /\b(?:SPEC|rule)\s+([A-Z]\d+(?:(?:\s*[,/&]\s*|\s+and\s+)[A-Z]\d+|[–-][A-Z]?\d+)*)/g;
	for (const [, ids] of text.matchAll(list)) {
		let letter = "";
		let previous = 0;
		for (const [, sep, prefix, digits] of (ids as string).matchAll(/([–-])?([A-Z]?)(\d+)/g)) {
			letter = prefix || letter;
			const number = Number(digits);
			if (sep) {
				for (let n = previous + 1; n < number; n++)
					found.push({ id: `${letter}${n}`, file, explicit: false });
			}
			found.push({ id: `${letter}${number}`, file, explicit: true });
			previous = number;
		}
	}
	return found;
}

/**
 * Walked by hand so that no `node_modules` is entered: bench/ is a package of its own, its installed
 * dependencies are not ours to cite rules, and its `capstan` (`file:..`) is a symlink back to this repository —
 * a recursive `readdirSync` that follows it (Node 22 does) never ends.
 */
function sourceFiles(dir: string): string[] {
	const files: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) {
			if (entry.name !== "node_modules" && relative(REPO_ROOT, path) !== join("test", "fixtures"))
				files.push(...sourceFiles(path));
		} else if (entry.isFile() && /\.(ts|mts|md)$/.test(entry.name)) files.push(path);
	}
	return files;
}

const cited = ["src", "test", "bench", "examples"].flatMap((folder) =>
	sourceFiles(resolve(REPO_ROOT, folder)).flatMap((file) =>
		citations(readFileSync(file, "utf8"), relative(REPO_ROOT, file)),
	),
);
const rules = definedRules(DOC);

describe("docs/behaviour.md", () => {
	it("defines the 77 rules, M1 to I5, each with an anchor of its own id", () => {
		expect(rules.size).toBe(77);
		for (const [id, anchor] of rules) expect(anchor, `rule ${id}`).toBe(id.toLowerCase());
		const families = new Set([...rules.keys()].map((id) => id[0]));
		expect([...families].join("")).toBe("MELSTAQCXI");
	});

	it("defines every rule id the code, the tests, the benches and the examples cite", () => {
		const missing = cited.filter((c) => !rules.has(c.id)).map((c) => `${c.id} (cited in ${c.file})`);
		expect([...new Set(missing)], "cited rule ids that docs/behaviour.md does not define").toEqual([]);
	});

	it("has every rule named by at least one test", () => {
		const tested = new Set(cited.filter((c) => c.explicit && c.file.startsWith("test/")).map((c) => c.id));
		const untested = [...rules.keys()].filter((id) => !tested.has(id));
		expect(untested, "rules no test names as `SPEC <id>`").toEqual([]);
	});

	it("is the target of every README link into it", () => {
		const readme = readFileSync(resolve(REPO_ROOT, "README.md"), "utf8");
		const targets = [...readme.matchAll(/docs\/behaviour\.md#([\w-]+)/g)].map((m) => m[1] as string);
		expect(targets.length).toBeGreaterThan(0);
		const known = anchors(DOC);
		expect(targets.filter((target) => !known.has(target))).toEqual([]);
		const internal = [...DOC.matchAll(/\]\(#([\w-]+)\)/g)].map((m) => m[1] as string);
		expect(
			internal.filter((target) => !known.has(target)),
			"links inside the document",
		).toEqual([]);
	});
});

describe("rule citations are read the way tests write them", () => {
	it("reads lists, slashes, 'and', ranges and the `rule` form", () => {
		// Built at run time, so this sample does not count as this file citing the rules.
		const sample = "// @ T10, T11 (@ A3/A7) @ T4 and T5; @ I1–I4, % L5: @ T10 - 250 ms";
		const text = sample.replaceAll("@", "SPEC").replaceAll("%", "rule");
		const found = citations(text, "x.ts");
		expect(found.map((c) => `${c.id}${c.explicit ? "" : "?"}`)).toEqual([
			"T10",
			"T11",
			"A3",
			"A7",
			"T4",
			"T5",
			"I1",
			"I2?",
			"I3?",
			"I4",
			"L5",
			"T10",
		]);
	});
});
