/**
 * Entry module of the cleaner's piscina threads: one stateless call per job. The thread reads the
 * owner's leased descriptors (threads share the process's descriptor table) and writes only
 * `.cleaned` files; the owner does the swap when the result comes back.
 */
import type { CleanResult, CleanTask } from './clean-task.js';
import { cleanSegments } from './clean-segments.js';

export default function cleanTask(task: CleanTask): CleanResult {
  return cleanSegments(task);
}
