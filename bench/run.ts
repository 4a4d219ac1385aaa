/**
 * `npm run bench` (at the repository root): capstan side by side with pi-agent-core, the OpenAI Agents SDK
 * and the AI SDK against a no-library floor, W1–W4 here plus every `w5-*.ts` / `w6-*.ts` script beside this
 * file. Prints Markdown tables and writes `results/latest.md` and `results/latest.json`.
 *
 * Flags: `--quick` (under a minute, smoke-check figures), `--only=capstan,pi-agent-core` (the floor always
 * runs), `--no-build` (use `../dist` as it is; by default it is rebuilt when `../src` is newer).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { prepareWorkers } from "./build.js";
import { LIBRARIES, PACKAGES, selectLibraries } from "./src/libraries.js";
import { planFor } from "./src/plan.js";
import { type ExternalWorkload, methodText, type RunInfo, renderMarkdown, targetsFor } from "./src/report.js";
import { measureAll } from "./src/schedule.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..");

const { values } = parseArgs({
	options: {
		quick: { type: "boolean", default: false },
		only: { type: "string" },
		"no-build": { type: "boolean", default: false },
	},
});

function versionOf(pkg: string): string {
	const file = join(here, "node_modules", pkg, "package.json");
	return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

function runInfo(): RunInfo {
	const versions: RunInfo["versions"] = {};
	for (const library of LIBRARIES) {
		const pkg = PACKAGES[library];
		if (pkg) versions[library] = versionOf(pkg);
	}
	let commit = "unknown";
	try {
		commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
	} catch {}
	return {
		date: new Date().toISOString(),
		node: process.version,
		cpus: cpus().length,
		cpuModel: cpus()[0]?.model ?? "unknown",
		loadAverage: loadavg(),
		versions,
		capstanCommit: commit,
	};
}

/** Run one W5/W6 script; its last stdout line is its result. */
function runExternal(file: string, quick: boolean): Promise<ExternalWorkload | string> {
	const args = ["--import", "tsx", join(here, file), ...(quick ? ["--quick"] : [])];
	return new Promise((resolve) => {
		const child = spawn(process.execPath, args, { cwd: here, stdio: ["ignore", "pipe", "inherit"] });
		let out = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk;
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), quick ? 30_000 : 900_000);
		child.on("close", (code) => {
			clearTimeout(timer);
			try {
				const parsed = JSON.parse(out.trim().split("\n").at(-1) ?? "") as ExternalWorkload;
				if (code !== 0 || !Array.isArray(parsed.rows)) throw new Error(`exit ${code}`);
				resolve({ ...parsed, targets: parsed.targets ?? [] });
			} catch (error) {
				resolve(`${file}: no result (${String(error)})`);
			}
		});
	});
}

interface SoakResult {
	turns: number;
	msPerTurn: number;
	heapStartMb: number;
	heapEndMb: number;
	heapSlopeBytesPerTurn: number;
	leftBehind: Record<string, number>;
}

/** The capstan-only soak (reliability, not speed): its own process, forced GC for the heap samples. */
function runSoak(turns: number): SoakResult | string {
	const script = join(here, "dist", "soak.js");
	const result = spawnSync(process.execPath, ["--expose-gc", script, `--turns=${turns}`], {
		encoding: "utf8",
		timeout: 300_000,
	});
	try {
		return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "") as SoakResult;
	} catch {
		return `soak: no result (${result.stderr.trim().slice(-300)})`;
	}
}

function soakSection(soak: SoakResult): string {
	const left = Object.keys(soak.leftBehind).length === 0 ? "nothing" : JSON.stringify(soak.leftBehind);
	return [
		"## Soak (capstan-only, no peer: a leak check, not a comparison)",
		"",
		`${soak.turns.toLocaleString("en-US")} \`Agent\` turns on the scripted model, transcript reset between prompts: heap ${soak.heapStartMb.toFixed(1)} → ${soak.heapEndMb.toFixed(1)} MB after forced GC, slope over the second half ${soak.heapSlopeBytesPerTurn.toFixed(1)} B/turn; timers and handles left behind: ${left}.`,
	].join("\n");
}

async function main(): Promise<void> {
	const plan = planFor(values.quick);
	const libraries = selectLibraries(values.only);
	await prepareWorkers(values["no-build"]);
	const info = runInfo();
	const started = performance.now();
	const cells = await measureAll(plan, libraries, (line) => console.error(line));
	const external: ExternalWorkload[] = [];
	const skipped: string[] = [];
	const scripts = readdirSync(here)
		.filter((f) => /^w[56]-.*\.ts$/.test(f))
		.sort();
	for (const script of scripts) {
		const result = await runExternal(script, plan.quick);
		if (typeof result === "string") skipped.push(result);
		else external.push(result);
	}
	if (scripts.length === 0)
		skipped.push("W5/W6: no `bench/w5-*.ts` / `bench/w6-*.ts` scripts present; skipped.");
	const soak = libraries.includes("capstan") ? runSoak(plan.quick ? 2_000 : 10_000) : undefined;
	if (typeof soak === "string") skipped.push(soak);
	const extras = soak && typeof soak !== "string" ? [soakSection(soak)] : [];
	const markdown = renderMarkdown(cells, plan, libraries, info, external, skipped, extras);
	const seconds = (performance.now() - started) / 1000;
	// A quick run is a smoke check: it must not overwrite the figures of the last full run.
	const name = plan.quick ? "quick" : "latest";
	mkdirSync(join(here, "results"), { recursive: true });
	writeFileSync(join(here, "results", `${name}.md`), markdown);
	const targets = targetsFor(cells, plan, libraries);
	const json = { info, method: methodText(plan), plan, seconds, targets, cells, external, soak, skipped };
	writeFileSync(join(here, "results", `${name}.json`), `${JSON.stringify(json, null, "\t")}\n`);
	console.log(markdown);
	console.error(`bench finished in ${seconds.toFixed(0)} s; written to bench/results/${name}.{md,json}`);
}

await main();
