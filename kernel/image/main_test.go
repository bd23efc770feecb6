package image

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// childBuildEnv makes the test binary a plain build process instead of a
// test run: TestBuildAfterKilledBuild starts it, then kills it.
const childBuildEnv = "ANALYST_IMAGE_TEST_BUILD_INTO"

func TestMain(m *testing.M) {
	if cache := os.Getenv(childBuildEnv); cache != "" {
		_, err := (&Builder{CacheDir: cache, Progress: os.Stdout}).Build(context.Background(), tinyRecipe, false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
