/**
 * GET /favicon.ico: the town's icon, a house in the stylesheet's ink on its paper. Every browser
 * asks for this path, so a town without it answers each first visit with a 404 in the console.
 * Drawn here (32×32, a PNG inside an ICO, made once) rather than kept as a binary file: what it
 * shows is readable in the source, and no asset tooling is needed.
 */
import { crc32, deflateSync } from 'node:zlib';

const size = 32;
const paper = [0xfb, 0xf8, 0xf1, 0xff];
const ink = [0x7a, 0x3e, 0x12, 0xff];

/** Whether pixel (x, y) is ink: a roof, the walls, and a door left in paper. */
function inked(x: number, y: number): boolean {
  const roof = y >= 3 && y <= 14 && Math.abs(x - 15.5) <= y - 2;
  const walls = y >= 14 && y <= 28 && x >= 6 && x <= 25;
  const door = y >= 19 && x >= 13 && x <= 18;
  return (roof || walls) && !door;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function png(): Buffer {
  const rows = Buffer.alloc(size * (1 + size * 4));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 4);
    rows[row] = 0; // filter: none
    for (let x = 0; x < size; x++) Buffer.from(inked(x, y) ? ink : paper).copy(rows, row + 1 + x * 4);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits a channel, RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An ICO of one 32×32 image held as PNG (as every current browser reads it). */
function ico(): Buffer {
  const image = png();
  const head = Buffer.alloc(22);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2); // an icon
  head.writeUInt16LE(1, 4); // one image
  head.writeUInt8(size, 6);
  head.writeUInt8(size, 7);
  head.writeUInt16LE(1, 10); // planes
  head.writeUInt16LE(32, 12); // bits a pixel
  head.writeUInt32LE(image.length, 14);
  head.writeUInt32LE(22, 18); // where the image starts
  return Buffer.concat([head, image]);
}

let made: Buffer | undefined;

export function townIcon(): Buffer {
  made ??= ico();
  return made;
}
