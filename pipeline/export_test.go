package pipeline

// SetAroundStaging sets the hook between the data's check and the
// kernel's staging (tests only; nil removes it).
func SetAroundStaging(f func() (after func())) { aroundStaging = f }
