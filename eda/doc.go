// Package eda generates the code of the deterministic analysis stages (profile, distributions) from templates. Not written yet: see the issue for analyst run.
package eda
