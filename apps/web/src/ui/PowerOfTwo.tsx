/**
 * 2 raised to `exponent`, drawn with a superscript and read aloud as words ("2 to the
 * power 40"): "2^40" or a bare superscript reads as "two forty" to a screen reader.
 */
export function PowerOfTwo({ exponent }: { exponent: number | string }) {
  return (
    <span role="img" aria-label={`2 to the power ${exponent}`} className="power">
      2<sup>{exponent}</sup>
    </span>
  )
}
