/** Handler module for the round-trip benchmark: op 1 echoes its body from ring memory. */
import type { RegisterHandlers } from '../../../src/worker/handler-module.js';

export const ECHO_OP = 1;

export const registerHandlers: RegisterHandlers = (setup) => {
  setup.handle(ECHO_OP, ({ body }) => body);
};
