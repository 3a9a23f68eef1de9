/**
 * The script of the /enter page that solves an arrival challenge in the browser. It is plain
 * JavaScript kept as text (it runs in the page, not in Node); test/identity/pages.test.ts runs
 * its SHA-256 against node:crypto. A synchronous SHA-256 is used rather than WebCrypto because
 * crypto.subtle answers one digest per promise, far too slow for the ~260,000 tries 18 bits take.
 */

/** `zeroBits(text)`: leading zero bits of SHA-256 of an ASCII text. */
export const sha256ZeroBitsSource = `
function zeroBits(s) {
  var K = zeroBits.K || (zeroBits.K = new Uint32Array([
    0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,
    0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,
    0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,
    0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,
    0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,
    0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,
    0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,
    0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2]));
  var len = s.length, words = (((len + 8) >> 6) + 1) << 4;
  var m = new Uint32Array(words), w = new Uint32Array(64), i, j;
  for (i = 0; i < len; i++) m[i >> 2] |= (s.charCodeAt(i) & 0xff) << (24 - (i & 3) * 8);
  m[len >> 2] |= 0x80 << (24 - (len & 3) * 8);
  m[words - 1] = len * 8;
  var h0 = 0x6a09e667, h1 = 0xbb67ae85, h2 = 0x3c6ef372, h3 = 0xa54ff53a,
      h4 = 0x510e527f, h5 = 0x9b05688c, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
  for (j = 0; j < words; j += 16) {
    for (i = 0; i < 16; i++) w[i] = m[j + i];
    for (i = 16; i < 64; i++) {
      var x = w[i - 15], y = w[i - 2];
      w[i] = (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3))
           + (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) + w[i - 7] + w[i - 16];
    }
    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (i = 0; i < 64; i++) {
      var t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7)))
               + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      var t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10)))
               + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  var out = [h0, h1, h2, h3, h4, h5, h6, h7], n = 0;
  for (i = 0; i < 8; i++) { var z = Math.clz32(out[i]); n += z; if (z < 32) break; }
  return n;
}`;

/**
 * Fills the arrival form's nonce before it is sent, working in slices so the page stays
 * responsive. A form with a nonce already typed in is sent as it is (the server checks it).
 */
export const arrivalFormScript = `${sha256ZeroBitsSource}
(function () {
  var form = document.getElementById('arrive');
  if (!form) return;
  var bits = Number(form.getAttribute('data-bits'));
  var status = document.getElementById('arrive-status');
  var field = function (name) { return form.elements.namedItem(name); };
  form.addEventListener('submit', function (event) {
    if (field('nonce').value) return;
    event.preventDefault();
    var prefix = field('challenge').value + ':' + field('name').value + ':';
    var n = 0;
    status.textContent = 'Working out the key…';
    (function slice() {
      for (var end = n + 20000; n < end; n++) {
        if (zeroBits(prefix + n.toString(36)) >= bits) {
          field('nonce').value = n.toString(36);
          status.textContent = 'Found; entering…';
          form.submit();
          return;
        }
      }
      setTimeout(slice, 0);
    })();
  });
})();`;
