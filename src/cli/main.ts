#!/usr/bin/env node
import { endRunningCommands } from "../workspace/index.js";
import { main } from "./command.js";
/** The `capstan` bin: runs the command on this process and exits with its code. */
import { EXIT } from "./outcome.js";
import { terminalText } from "./terminal-text.js";

/**
 * A closed pipe (`capstan -p … | head -1`) is the reader's choice, not an error worth a stack trace; any other
 * failure to write the output (a full disk, `> /dev/full`) means the answer was lost: one line, exit 1.
 */
function outputFailed(error: NodeJS.ErrnoException): never {
	if (error.code === "EPIPE") process.exit(EXIT.ok);
	process.stderr.write(terminalText(`capstan: cannot write the output: ${error.message}\n`));
	process.exit(EXIT.runError);
}

process.stdout.on("error", outputFailed);

main({
	argv: process.argv.slice(2),
	env: process.env,
	cwd: process.cwd(),
	stdin: process.stdin,
	stdout: process.stdout,
	stderr: process.stderr,
}).then(
	(code) => {
		// A tool that ignored its abort may have left a shell command behind (rule I4): it ends with us.
		endRunningCommands();
		// The callback runs once everything before it is written, or failed to be.
		process.stdout.write("", (error) => {
			if (error) outputFailed(process.stdout.errored ?? error);
			process.exit(code);
		});
	},
	(error: unknown) => {
		// A stack quotes messages from anywhere: shown, like every other line on stderr, not obeyed.
		process.stderr.write(
			terminalText(`capstan: internal error: ${error instanceof Error ? error.stack : String(error)}\n`),
		);
		process.exit(70);
	},
);
