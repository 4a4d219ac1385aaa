/**
 * The `capstan` command's interactive mode (a TTY on both ends). `main.ts` calls `runInteractive(host)`;
 * tests pass their own streams through `options`.
 */
import type { InteractiveHost } from "../host.js";
import { EXIT } from "../outcome.js";
import type { SignalHooks } from "../signals.js";
import { CSI, createPalette, wantsColor } from "./ansi.js";
import { InteractiveController } from "./controller.js";
import { type KeyInput, keyAction, readKeys } from "./keys.js";
import { LiveScreen } from "./screen.js";

export { KEY_HELP } from "./commands.js";

/** The terminal streams the interactive mode runs on (default: the process's stdin and stdout). */
export interface InteractiveOptions {
	input?: NodeJS.ReadStream;
	output?: NodeJS.WriteStream;
	env?: NodeJS.ProcessEnv;
	/** SIGINT/SIGTERM: with no run they leave as `/exit` does (exit 130); a forced exit still restores the terminal. */
	signals?: SignalHooks;
}

/**
 * Run the interactive mode until the user exits; resolves with the exit code. The terminal is restored
 * (cooked mode, cursor shown, bracketed paste off) on every way out, a forced exit on a second signal included.
 */
export async function runInteractive(
	host: InteractiveHost,
	options: InteractiveOptions = {},
): Promise<number> {
	const input = options.input ?? process.stdin;
	const output = options.output ?? process.stdout;
	const style = createPalette(wantsColor(options.env ?? process.env));
	const screen = new LiveScreen(output);
	const controller = new InteractiveController(host, screen, output, style);
	output.write(CSI.bracketedPasteOn);
	const stop = controller.start();
	const stopKeys = readKeys(input as NodeJS.ReadStream & KeyInput, (text, key) =>
		controller.handle(keyAction(text, key, controller.inPaste), text),
	);
	const onResize = (): void => controller.resized();
	output.on("resize", onResize);
	let restored = false;
	const restore = (): void => {
		if (restored) return;
		restored = true;
		output.off("resize", onResize);
		stopKeys();
		stop();
		screen.clear();
		output.write(CSI.bracketedPasteOff);
	};
	const offStop = options.signals?.onStop(() => void controller.exit(EXIT.interrupted));
	const offForcedExit = options.signals?.onForcedExit(restore);
	try {
		return await controller.done;
	} finally {
		offStop?.();
		offForcedExit?.();
		restore();
	}
}
