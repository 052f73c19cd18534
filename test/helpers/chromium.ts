/**
 * Debian's `chromium`, headless, for the report tests: the DOM after the page ran and every
 * console message it logged (`--enable-logging=stderr` prints them as `CONSOLE` lines, errors
 * and uncaught exceptions included), and a PNG decoder to look at the screenshot's pixels
 * (8-bit RGB or RGBA, non-interlaced: what Chromium writes).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { findChromium, headlessArgs } from '@sluice/tune/report-png.js';

export function chromiumSkip(): string | undefined {
  return findChromium() === null ? 'chromium is not installed (apt-get install chromium)' : undefined;
}

export interface RenderedPage {
  readonly dom: string;
  /** The page's console messages, one per line as Chromium logged them. */
  readonly console: readonly string[];
}

export function renderInChromium(htmlPath: string): RenderedPage {
  const chromium = findChromium();
  if (chromium === null) throw new Error('chromium is not installed');
  const profile = mkdtempSync(join(tmpdir(), 'sluice-test-chromium-'));
  try {
    const run = spawnSync(
      chromium,
      [...headlessArgs(profile, 900), '--enable-logging=stderr', '--v=0', '--dump-dom', pathToFileURL(resolve(htmlPath)).href],
      {
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    if (run.status !== 0) throw new Error(`chromium exited ${run.status ?? run.signal}: ${run.stderr}`);
    return { dom: run.stdout, console: run.stderr.split('\n').filter((line) => line.includes(':CONSOLE')) };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  /** [r, g, b] of the pixel at (x, y). */
  rgb(x: number, y: number): [number, number, number];
}

export function decodePng(png: Buffer): DecodedPng {
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colourType, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || interlace !== 0 || (colourType !== 2 && colourType !== 6))
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${colourType}, interlace ${interlace}`);
      channels = colourType === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      data.push(body);
    }
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let row = 0; row < height; row++) {
    const filter = raw[row * (stride + 1)]!;
    const line = raw.subarray(row * (stride + 1) + 1, (row + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? pixels[row * stride + i - channels]! : 0;
      const up = row > 0 ? pixels[(row - 1) * stride + i]! : 0;
      const upLeft = row > 0 && i >= channels ? pixels[(row - 1) * stride + i - channels]! : 0;
      const predictor = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter];
      if (predictor === undefined) throw new Error(`bad PNG filter ${filter}`);
      pixels[row * stride + i] = (line[i]! + predictor) & 0xff;
    }
  }
  return {
    width,
    height,
    rgb: (x, y) => {
      const i = y * stride + x * channels;
      return [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!];
    },
  };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}
