;; RGBA -> I420 (BT.709, limited range), 16 pixels (8 columns x 2 rows) a step, WebAssembly
;; SIMD. Same maths as rgba-to-i420.ts, with 15 fractional bits instead of 16 so that the
;; coefficients fit the signed 16-bit lanes of i32x4.dot_i16x8_s:
;;   Y  = 16  + 219/255 ( 0.2126 R + 0.7152 G + 0.0722 B)        -> 5983, 20127, 2032
;;   Cb = 128 + 224/255 (-0.1146 R - 0.3854 G + 0.5    B)  (mean of the 2x2 block) -> -3299, -11094, 14393
;;   Cr = 128 + 224/255 ( 0.5    R - 0.4542 G - 0.0458 B)                          -> 14393, -13074, -1319
;; `blend121` is the motion blur: the 1-2-1 mean of three frames as ffmpeg's two `tblend`s
;; give it, fused here so that ffmpeg only encodes.
;; Rebuild the embedded binary with `npm run build:wasm -w packages/osu` (a test checks it is current).
(module
  (memory (export "memory") 1)

  ;; Converts `rows` rows (even) of RGBA at `src` (stride width * 4) into Y at `y` (stride
  ;; width) and Cb/Cr at `u`/`v` (stride width / 2). Only the first width & ~7 columns:
  ;; the caller converts any remaining columns.
  (func (export "convert")
    (param $src i32) (param $width i32) (param $rows i32) (param $y i32) (param $u i32) (param $v i32)
    (local $r i32) (local $x i32) (local $w8 i32)
    (local $s0 i32) (local $s1 i32) (local $y0 i32) (local $y1 i32) (local $cu i32) (local $cv i32)
    (local $a0 v128) (local $a1 v128) (local $b0 v128) (local $b1 v128)
    (local $lo v128) (local $hi v128) (local $d0 v128) (local $d1 v128) (local $d2 v128) (local $d3 v128)
    (local $cy v128) (local $cuc v128) (local $cvc v128) (local $yoff v128) (local $coff v128)
    (local.set $cy (v128.const i16x8 5983 20127 2032 0 5983 20127 2032 0))
    (local.set $cuc (v128.const i16x8 -3299 -11094 14393 0 -3299 -11094 14393 0))
    (local.set $cvc (v128.const i16x8 14393 -13074 -1319 0 14393 -13074 -1319 0))
    ;; (16 << 15) + (1 << 14): offset and rounding
    (local.set $yoff (i32x4.splat (i32.const 540672)))
    ;; ((128 << 15) + (1 << 14)) << 2: the chroma sums are of four pixels
    (local.set $coff (i32x4.splat (i32.const 16842752)))
    (local.set $w8 (i32.and (local.get $width) (i32.const -8)))
    (block $done
      (loop $rowpair
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $s0 (i32.add (local.get $src) (i32.mul (local.get $r) (i32.shl (local.get $width) (i32.const 2)))))
        (local.set $s1 (i32.add (local.get $s0) (i32.shl (local.get $width) (i32.const 2))))
        (local.set $y0 (i32.add (local.get $y) (i32.mul (local.get $r) (local.get $width))))
        (local.set $y1 (i32.add (local.get $y0) (local.get $width)))
        (local.set $cu (i32.add (local.get $u) (i32.mul (i32.shr_u (local.get $r) (i32.const 1)) (i32.shr_u (local.get $width) (i32.const 1)))))
        (local.set $cv (i32.add (local.get $v) (i32.mul (i32.shr_u (local.get $r) (i32.const 1)) (i32.shr_u (local.get $width) (i32.const 1)))))
        (local.set $x (i32.const 0))
        (block $rowdone
          (loop $cols
            (br_if $rowdone (i32.ge_u (local.get $x) (local.get $w8)))
            (local.set $a0 (v128.load (local.get $s0)))
            (local.set $a1 (v128.load offset=16 (local.get $s0)))
            (local.set $b0 (v128.load (local.get $s1)))
            (local.set $b1 (v128.load offset=16 (local.get $s1)))

            ;; Y of row 0: per pixel [R*YR + G*YG, B*YB] from the dot, then the pairs summed
            (local.set $d0 (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $a0)) (local.get $cy)))
            (local.set $d1 (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $a0)) (local.get $cy)))
            (local.set $d2 (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $a1)) (local.get $cy)))
            (local.set $d3 (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $a1)) (local.get $cy)))
            (v128.store64_lane 0 (local.get $y0)
              (i8x16.narrow_i16x8_u
                (i16x8.narrow_i32x4_s
                  (i32x4.shr_s
                    (i32x4.add (local.get $yoff)
                      (i32x4.add
                        (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d0) (local.get $d1))
                        (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d0) (local.get $d1))))
                    (i32.const 15))
                  (i32x4.shr_s
                    (i32x4.add (local.get $yoff)
                      (i32x4.add
                        (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d2) (local.get $d3))
                        (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d2) (local.get $d3))))
                    (i32.const 15)))
                (v128.const i64x2 0 0)))

            ;; Y of row 1
            (local.set $d0 (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $b0)) (local.get $cy)))
            (local.set $d1 (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $b0)) (local.get $cy)))
            (local.set $d2 (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_u (local.get $b1)) (local.get $cy)))
            (local.set $d3 (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_u (local.get $b1)) (local.get $cy)))
            (v128.store64_lane 0 (local.get $y1)
              (i8x16.narrow_i16x8_u
                (i16x8.narrow_i32x4_s
                  (i32x4.shr_s
                    (i32x4.add (local.get $yoff)
                      (i32x4.add
                        (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d0) (local.get $d1))
                        (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d0) (local.get $d1))))
                    (i32.const 15))
                  (i32x4.shr_s
                    (i32x4.add (local.get $yoff)
                      (i32x4.add
                        (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d2) (local.get $d3))
                        (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d2) (local.get $d3))))
                    (i32.const 15)))
                (v128.const i64x2 0 0)))

            ;; chroma: column sums of the two rows, then neighbouring pixels summed into the
            ;; four 2x2 blocks as [R G B A] 16-bit sums ($lo: blocks 0 and 1, $hi: 2 and 3)
            (local.set $d0 (i16x8.add (i16x8.extend_low_i8x16_u (local.get $a0)) (i16x8.extend_low_i8x16_u (local.get $b0))))
            (local.set $d1 (i16x8.add (i16x8.extend_high_i8x16_u (local.get $a0)) (i16x8.extend_high_i8x16_u (local.get $b0))))
            (local.set $d2 (i16x8.add (i16x8.extend_low_i8x16_u (local.get $a1)) (i16x8.extend_low_i8x16_u (local.get $b1))))
            (local.set $d3 (i16x8.add (i16x8.extend_high_i8x16_u (local.get $a1)) (i16x8.extend_high_i8x16_u (local.get $b1))))
            (local.set $lo
              (i16x8.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $d0) (local.get $d1))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $d0) (local.get $d1))))
            (local.set $hi
              (i16x8.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $d2) (local.get $d3))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $d2) (local.get $d3))))
            ;; Cb and Cr of the four blocks
            (local.set $d0 (i32x4.dot_i16x8_s (local.get $lo) (local.get $cuc)))
            (local.set $d1 (i32x4.dot_i16x8_s (local.get $hi) (local.get $cuc)))
            (local.set $d2 (i32x4.dot_i16x8_s (local.get $lo) (local.get $cvc)))
            (local.set $d3 (i32x4.dot_i16x8_s (local.get $hi) (local.get $cvc)))
            (local.set $lo
              (i8x16.narrow_i16x8_u
                (i16x8.narrow_i32x4_s
                  (i32x4.shr_s
                    (i32x4.add (local.get $coff)
                      (i32x4.add
                        (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d0) (local.get $d1))
                        (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d0) (local.get $d1))))
                    (i32.const 17))
                  (i32x4.shr_s
                    (i32x4.add (local.get $coff)
                      (i32x4.add
                        (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $d2) (local.get $d3))
                        (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $d2) (local.get $d3))))
                    (i32.const 17)))
                (v128.const i64x2 0 0)))
            (v128.store32_lane 0 (local.get $cu) (local.get $lo))
            (v128.store32_lane 1 (local.get $cv) (local.get $lo))

            (local.set $s0 (i32.add (local.get $s0) (i32.const 32)))
            (local.set $s1 (i32.add (local.get $s1) (i32.const 32)))
            (local.set $y0 (i32.add (local.get $y0) (i32.const 8)))
            (local.set $y1 (i32.add (local.get $y1) (i32.const 8)))
            (local.set $cu (i32.add (local.get $cu) (i32.const 4)))
            (local.set $cv (i32.add (local.get $cv) (i32.const 4)))
            (local.set $x (i32.add (local.get $x) (i32.const 8)))
            (br $cols)))
        (local.set $r (i32.add (local.get $r) (i32.const 2)))
        (br $rowpair))))

  ;; out = avg(avg(p2, p1), avg(p1, c)) byte by byte over `n` bytes, avg(a, b) = (a + b) >> 1
  ;; (truncating, as ffmpeg's tblend all_mode=average): the blend of frames n-2, n-1 and n.
  ;; avgr_u rounds up, so each mean takes back the odd bit: avgr_u(a, b) - ((a ^ b) & 1).
  (func (export "blend121")
    (param $p2 i32) (param $p1 i32) (param $c i32) (param $out i32) (param $n i32)
    (local $i i32) (local $n16 i32) (local $a v128) (local $b v128) (local $d v128)
    (local $h1 v128) (local $h2 v128) (local $one v128) (local $x i32) (local $y i32) (local $z i32)
    (local.set $one (i8x16.splat (i32.const 1)))
    (local.set $n16 (i32.and (local.get $n) (i32.const -16)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $n16)))
        (local.set $a (v128.load (i32.add (local.get $p2) (local.get $i))))
        (local.set $b (v128.load (i32.add (local.get $p1) (local.get $i))))
        (local.set $d (v128.load (i32.add (local.get $c) (local.get $i))))
        (local.set $h1 (i8x16.sub (i8x16.avgr_u (local.get $a) (local.get $b))
          (v128.and (v128.xor (local.get $a) (local.get $b)) (local.get $one))))
        (local.set $h2 (i8x16.sub (i8x16.avgr_u (local.get $b) (local.get $d))
          (v128.and (v128.xor (local.get $b) (local.get $d)) (local.get $one))))
        (v128.store (i32.add (local.get $out) (local.get $i))
          (i8x16.sub (i8x16.avgr_u (local.get $h1) (local.get $h2))
            (v128.and (v128.xor (local.get $h1) (local.get $h2)) (local.get $one))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $step)))
    ;; the last n % 16 bytes one at a time
    (block $tail
      (loop $byte
        (br_if $tail (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $x (i32.load8_u (i32.add (local.get $p2) (local.get $i))))
        (local.set $y (i32.load8_u (i32.add (local.get $p1) (local.get $i))))
        (local.set $z (i32.load8_u (i32.add (local.get $c) (local.get $i))))
        (i32.store8 (i32.add (local.get $out) (local.get $i))
          (i32.shr_u
            (i32.add
              (i32.shr_u (i32.add (local.get $x) (local.get $y)) (i32.const 1))
              (i32.shr_u (i32.add (local.get $y) (local.get $z)) (i32.const 1)))
            (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))))
