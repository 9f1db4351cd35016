package str

// Distance is the optimal-string-alignment edit distance between a and b,
// counted in runes: an insertion, a deletion, a substitution or a
// transposition of neighbours ("qeury" for "query") each costs one, and
// no substring is edited twice. It returns limit once the distance
// reaches limit, and computes only the cells that can stay below it, so a
// small limit makes it linear in the strings' length. It allocates; a
// caller that computes many uses a [Distances].
func Distance(a, b string, limit int) int {
	var d Distances
	return d.Between(a, b, limit)
}

// Distances computes [Distance] reusing its buffers from call to call.
// The zero value is ready to use; a Distances is not safe for concurrent
// use.
type Distances struct {
	// Levenshtein counts a transposition of neighbours as two edits, the
	// Levenshtein distance: what a search needs that finds candidates by
	// cutting names into pieces, since one transposition may straddle two
	// pieces (the audit's near-miss index).
	Levenshtein bool

	ra, rb []rune
	rows   []int
}

// Between returns [Distance](a, b, limit), or the Levenshtein distance
// under the same limit with [Distances.Levenshtein].
func (d *Distances) Between(a, b string, limit int) int {
	if limit <= 0 {
		return 0
	}
	d.ra, d.rb = appendRunes(d.ra[:0], a), appendRunes(d.rb[:0], b)
	return d.osa(d.ra, d.rb, limit)
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// osa fills three rows of the alignment matrix (the transposition reads
// two rows up), only the band of cells within limit-1 of the diagonal: a
// path that leaves the band costs limit or more. A row whose every cell
// reaches limit ends the search, since no later cell can be smaller.
func (d *Distances) osa(a, b []rune, limit int) int {
	if diff := len(a) - len(b); diff >= limit || -diff >= limit {
		return limit
	}
	n := len(b)
	if cap(d.rows) < 3*(n+2) {
		d.rows = make([]int, 3*(n+2))
	}
	pp, prev, cur := d.rows[:n+2], d.rows[n+2:2*(n+2)], d.rows[2*(n+2):3*(n+2)]
	for j := range prev {
		prev[j] = min(j, limit)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit+1), min(n, i+limit-1)
		cur[lo-1] = min(i, limit) // column 0, or the band's left edge
		if lo > 1 {
			cur[lo-1] = limit
		}
		rowMin := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if !d.Levenshtein && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				c = min(c, pp[j-2]+1)
			}
			cur[j] = min(c, limit)
			rowMin = min(rowMin, cur[j])
		}
		cur[hi+1] = limit // the band's right edge, read by the next row
		if rowMin >= limit {
			return limit
		}
		pp, prev, cur = prev, cur, pp
	}
	return min(prev[n], limit)
}
