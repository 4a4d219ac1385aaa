/**
 * The longest delay `setTimeout` can wait, in ms (2^31 - 1, about 24.8 days). A longer one is not honoured:
 * Node, browsers and fake timers all fire it after 1 ms instead, so a timeout or a wait meant to be effectively
 * endless would end at once.
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
