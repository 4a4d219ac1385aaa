// API reports: one `etc/<entry>.api.md` per package entry, made by API Extractor from the built declarations.
// The entries come from package.json "exports", so a new entry is reported as soon as it is exported.
//   node scripts/api-report.mjs          update the reports (commit them with the change that moved the API)
//   node scripts/api-report.mjs --check  fail when the public surface differs from the committed reports (CI)
// Both need `npm run build` first (the npm scripts `api` and `api:check` do it).
import { resolve } from "node:path";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { entries, root } from "./entries.mjs";

const check = process.argv.includes("--check");

let failed = false;
for (const { specifier: entry, reportName: name, dts } of entries) {
	const config = ExtractorConfig.prepare({
		configObject: {
			projectFolder: root,
			mainEntryPointFilePath: dts,
			compiler: {
				overrideTsconfig: {
					compilerOptions: {
						target: "ES2022",
						lib: ["ES2023", "DOM"],
						module: "NodeNext",
						moduleResolution: "NodeNext",
						strict: true,
						skipLibCheck: true,
						types: ["node"],
					},
					include: ["dist"],
				},
			},
			apiReport: {
				enabled: true,
				reportFileName: `${name}.api.md`,
				reportFolder: resolve(root, "etc"),
				reportTempFolder: resolve(root, "node_modules/.cache/api-extractor"),
			},
			docModel: { enabled: false },
			dtsRollup: { enabled: false },
			tsdocMetadata: { enabled: false },
			// Findings (a type a signature uses but the entry does not export, broken TSDoc) are written into
			// the report, where a reviewer sees them, instead of failing the build.
			messages: {
				compilerMessageReporting: { default: { logLevel: "warning" } },
				extractorMessageReporting: {
					default: { logLevel: "warning", addToApiReportFile: true },
					// Every export of an entry is public by definition: capstan does not use release tags.
					"ae-missing-release-tag": { logLevel: "none" },
				},
				tsdocMessageReporting: { default: { logLevel: "warning", addToApiReportFile: true } },
			},
		},
		configObjectFullPath: resolve(root, "scripts/api-report.json"),
		packageJsonFullPath: resolve(root, "package.json"),
	});
	const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false });
	if (check && result.apiReportChanged) {
		console.error(
			`${entry}: the public API differs from etc/${name}.api.md — run \`npm run api\` and commit it`,
		);
		failed = true;
	} else if (!result.succeeded) {
		console.error(
			`${entry}: API Extractor reported ${result.errorCount} errors, ${result.warningCount} warnings`,
		);
		failed = true;
	} else {
		console.log(`${entry}: etc/${name}.api.md ${result.apiReportChanged ? "updated" : "unchanged"}`);
	}
}
process.exit(failed ? 1 : 0);
