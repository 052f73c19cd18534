/** Handler module for the round-trip benchmark: op 1 echoes its body from ring memory. */
import type { RegisterOps } from '../../../src/worker-pool/op-module.js';

export const ECHO_OP = 1;

export const registerOps: RegisterOps = (setup) => {
  setup.handle(ECHO_OP, ({ body }) => body);
};
