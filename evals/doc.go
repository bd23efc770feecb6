// Package evals runs dataset × question cases against models and scores them (analyst eval). Not written yet.
package evals
