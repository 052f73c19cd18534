/** A log dir's file system sizes as DescribeLogDirs reports them. Any thread. */
import { statfsSync } from 'node:fs';

export interface LogDirSpace {
  readonly totalBytes: number;
  readonly usableBytes: number;
}

export function logDirSpace(path: string): LogDirSpace {
  try {
    const fs = statfsSync(path);
    return { totalBytes: fs.blocks * fs.bsize, usableBytes: fs.bavail * fs.bsize };
  } catch {
    // An unreadable log dir is reported offline by its owner; its sizes stay unknown (-1), as in Kafka.
    return { totalBytes: -1, usableBytes: -1 };
  }
}
