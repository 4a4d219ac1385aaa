/**
 * W5 decode throughput (issue 10): recorded Anthropic Messages, Chat Completions, Responses and Gemini streams
 * grown to ≥ 5 MB (`bench/w56/corpus.ts`), served from memory by one `fetch` replacement (`Response` over a
 * `ReadableStream`, 16 KiB per chunk — `bench/w56/memory-fetch.ts`), through each library's real provider
 * path: capstan's `stream` (capstan/providers), pi-ai's provider streams, the AI SDK providers' `doStream`,
 * against the vendor SDKs' raw stream iteration on the same bytes. MB per CPU second of the process (wall-clock
 * MB/s in the note: on a shared machine it mostly measures the neighbours), median of ≥ 5 requests; every
 * request must yield exactly the corpus's text, or the library's row fails instead of reporting a speed.
 * Target: capstan ≥ 1× the vendor SDK on every API.
 *
 * Run: `npx tsx bench/w5-decode.ts [--quick]` from the repo root (`--quick`: 250 KB streams, one round — a smoke run, not the figures). Each
 * library runs in its own child process (`--library <name>`); in a full run the vendor SDK and capstan run
 * twice, in mirrored order, so drift on a shared machine does not favour either.
 */
import { fileURLToPath } from "node:url";
import { APIS, buildCorpus, SOURCES, type WireApi } from "./w56/corpus.js";
import { type Decode, memoryFetch } from "./w56/memory-fetch.js";
import { argValue, emit, hasFlag, median, type Row, runChild, type WorkloadResult } from "./w56/report.js";

const LIBRARIES = ["vendor-sdk", "capstan", "pi-ai", "ai-sdk"] as const;
type Library = (typeof LIBRARIES)[number];

const LABELS: Record<Library, string> = {
	"vendor-sdk": "vendor SDK (raw stream)",
	capstan: "capstan",
	"pi-ai": "pi-ai 0.73.1",
	"ai-sdk": "AI SDK 6 providers (doStream)",
};

const API_LABELS: Record<WireApi, string> = {
	anthropic: "Anthropic Messages",
	"openai-chat": "OpenAI Chat Completions",
	"openai-responses": "OpenAI Responses",
	"google-gemini": "Google Gemini",
};

interface Settings {
	bytes: number;
	warmups: number;
	samples: number;
}

const settings = (quick: boolean): Settings =>
	quick ? { bytes: 250_000, warmups: 1, samples: 5 } : { bytes: 5e6, warmups: 2, samples: 7 };

/**
 * One API in one child: MB/s of every timed request, per CPU second of the process (`process.cpuUsage`:
 * the figure, steady on a shared machine because time the process spends descheduled is not counted) and
 * per wall-clock second.
 */
interface ApiResult {
	api: WireApi;
	bytes: number;
	mbps: number[];
	wallMbps: number[];
}

async function decoderFor(library: Library): Promise<(api: WireApi) => Decode> {
	// Imported on demand: a child loads only its own library.
	if (library === "capstan") return (await import("./w56/w5-capstan.js")).capstanDecoder;
	if (library === "pi-ai") return (await import("./w56/w5-pi.js")).piDecoder;
	if (library === "ai-sdk") return (await import("./w56/w5-ai-sdk.js")).aiSdkDecoder;
	return (await import("./w56/w5-vendor.js")).vendorDecoder;
}

async function child(
	library: Library,
	{ bytes, warmups, samples }: Settings,
	apis: readonly WireApi[],
): Promise<ApiResult[]> {
	const decoderOf = await decoderFor(library);
	const results: ApiResult[] = [];
	for (const api of apis) {
		const corpus = buildCorpus(api, bytes);
		const decode = decoderOf(api);
		const { fetch } = memoryFetch(corpus.body);
		const megabytes = corpus.body.length / 1e6;
		const once = async () => {
			const cpu = process.cpuUsage();
			const start = performance.now();
			const chars = await decode(fetch);
			const ms = performance.now() - start;
			const used = process.cpuUsage(cpu);
			if (chars !== corpus.textLength)
				throw new Error(
					`${library} ${api}: decoded ${chars} text characters, the stream holds ${corpus.textLength}`,
				);
			return { cpu: megabytes / ((used.user + used.system) / 1e6), wall: megabytes / (ms / 1000) };
		};
		for (let i = 0; i < warmups; i++) await once();
		const runs: { cpu: number; wall: number }[] = [];
		for (let i = 0; i < samples; i++) runs.push(await once());
		results.push({
			api,
			bytes: corpus.body.length,
			mbps: runs.map((r) => r.cpu),
			wallMbps: runs.map((r) => r.wall),
		});
	}
	return results;
}

async function parent(quick: boolean): Promise<WorkloadResult> {
	const script = fileURLToPath(import.meta.url);
	const extra = quick ? ["--quick"] : [];
	const order: Library[] = quick
		? [...LIBRARIES]
		: ["vendor-sdk", "capstan", "pi-ai", "ai-sdk", "capstan", "vendor-sdk"];
	const samples = new Map<string, number[]>();
	const wall = new Map<string, number[]>();
	const sizes = new Map<WireApi, number>();
	for (const library of order) {
		const results = (await runChild(script, library, extra)) as ApiResult[];
		for (const result of results) {
			const key = `${library}/${result.api}`;
			samples.set(key, [...(samples.get(key) ?? []), ...result.mbps]);
			wall.set(key, [...(wall.get(key) ?? []), ...result.wallMbps]);
			sizes.set(result.api, result.bytes);
		}
	}
	const medianOf = (library: Library, api: WireApi) => median(samples.get(`${library}/${api}`) ?? []);
	const rows: Row[] = [];
	let capstanBehind: string[] = [];
	for (const api of APIS) {
		const vendor = medianOf("vendor-sdk", api);
		for (const library of LIBRARIES) {
			const value = medianOf(library, api);
			const n = samples.get(`${library}/${api}`)?.length ?? 0;
			const wallMedian = median(wall.get(`${library}/${api}`) ?? []);
			const ratio = value / vendor;
			if (library === "capstan" && ratio < 1)
				capstanBehind = [...capstanBehind, `${API_LABELS[api]} ${ratio.toFixed(2)}×`];
			rows.push({
				library: LABELS[library],
				case: API_LABELS[api],
				value: Math.round(value * 10) / 10,
				note: `${
					library === "vendor-sdk"
						? `${((sizes.get(api) ?? 0) / 1e6).toFixed(2)} MB grown from ${SOURCES[api]}`
						: `${ratio.toFixed(2)}× the vendor SDK`
				}; median of ${n}; wall clock ${wallMedian.toFixed(1)} MB/s`,
			});
		}
	}
	return {
		workload: "W5",
		title: `Decode throughput: recorded streams grown to ${quick ? "0.25" : "5"} MB, served from memory (Response over a ReadableStream), each library's provider path; MB per CPU second of its process`,
		unit: "MB/s (CPU)",
		higherIsBetter: true,
		rows,
		targets: [
			{
				text: `W5 ≥ 1× the vendor SDK on every API${capstanBehind.length > 0 ? ` (behind: ${capstanBehind.join(", ")})` : ""}`,
				pass: capstanBehind.length === 0,
			},
		],
	};
}

const library = argValue("library");
const quick = hasFlag("quick");
if (library !== undefined) {
	if (!(LIBRARIES as readonly string[]).includes(library)) throw new Error(`unknown --library ${library}`);
	// `--api <name>` runs one API only (for profiling one decoder: `node --import tsx --cpu-prof …`).
	const only = argValue("api");
	if (only !== undefined && !(APIS as readonly string[]).includes(only))
		throw new Error(`unknown --api ${only}`);
	emit(await child(library as Library, settings(quick), only === undefined ? APIS : [only as WireApi]));
} else emit(await parent(quick));
