package dabstep

// ratio is Python's difflib.SequenceMatcher(None, a, b).ratio() on two str:
// 2*M/T over code points, M the characters in the matching blocks that
// get_matching_blocks finds, T the two lengths together (1.0 when both are
// empty).
func ratio(a, b string) float64 {
	m := newMatcher([]rune(a), []rune(b))
	t := len(m.a) + len(m.b)
	if t == 0 {
		return 1.0
	}
	return 2.0 * float64(m.matches(0, len(m.a), 0, len(m.b))) / float64(t)
}

// matcher is SequenceMatcher with isjunk None and autojunk on: b2j indexes
// b's positions by element, less the popular elements of a b of 200 or more
// elements (those found more than len(b)/100 + 1 times). Popular elements
// are not junk: they are never the seed of a match, but a match grows over
// them.
type matcher struct {
	a, b []rune
	b2j  map[rune][]int
	// j2len and newj2len are find_longest_match's dicts as arrays indexed
	// by j+1, valid where their stamp is the current row.
	j2len, newj2len []int
	stamp, newStamp []int
	row             int
}

func newMatcher(a, b []rune) *matcher {
	m := &matcher{a: a, b: b, b2j: map[rune][]int{}}
	for j, r := range b {
		m.b2j[r] = append(m.b2j[r], j)
	}
	if n := len(b); n >= 200 {
		ntest := n/100 + 1
		for r, js := range m.b2j {
			if len(js) > ntest {
				delete(m.b2j, r)
			}
		}
	}
	m.j2len, m.newj2len = make([]int, len(b)+1), make([]int, len(b)+1)
	m.stamp, m.newStamp = make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range m.stamp {
		m.stamp[i], m.newStamp[i] = -1, -1
	}
	return m
}

// matches is the sum of the sizes of get_matching_blocks() in
// a[alo:ahi] × b[blo:bhi]: the longest match, then the same on each side
// of it.
func (m *matcher) matches(alo, ahi, blo, bhi int) int {
	i, j, k := m.longest(alo, ahi, blo, bhi)
	if k == 0 {
		return 0
	}
	n := k
	if alo < i && blo < j {
		n += m.matches(alo, i, blo, j)
	}
	if i+k < ahi && j+k < bhi {
		n += m.matches(i+k, ahi, j+k, bhi)
	}
	return n
}

// longest is find_longest_match: the longest a[i:i+k] == b[j:j+k] seeded
// from b2j, earliest in a, then earliest in b, among the longest; then
// grown by equal elements on both ends (there is no junk, so the second
// pair of loops that sucks up junk never runs).
func (m *matcher) longest(alo, ahi, blo, bhi int) (besti, bestj, bestsize int) {
	besti, bestj = alo, blo
	m.row++ // a fresh j2len: no entry of an earlier call is from row-1
	for i := alo; i < ahi; i++ {
		m.row++
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := 1
			if m.stamp[j] == m.row-1 { // j2len.get(j-1, 0), at index j-1+1
				k = m.j2len[j] + 1
			}
			m.newj2len[j+1], m.newStamp[j+1] = k, m.row
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		m.j2len, m.newj2len = m.newj2len, m.j2len
		m.stamp, m.newStamp = m.newStamp, m.stamp
	}
	for besti > alo && bestj > blo && m.a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.a[besti+bestsize] == m.b[bestj+bestsize] {
		bestsize++
	}
	return besti, bestj, bestsize
}
