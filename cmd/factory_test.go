package cmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/analyst-cli/analyst/llm"
)

// The model settings reach llm.Options from flags, environment, config
// file and defaults, in that order of precedence.
func TestModelOptions(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name  string
		file  string // config.yaml
		env   map[string]string
		flags []string
		want  llm.Options
	}{
		{name: "defaults",
			want: llm.Options{FirstTokenTimeout: 10 * time.Minute, Timeout: 2 * time.Minute, MaxReplyTokens: llm.DefaultMaxReplyTokens}},
		{name: "file",
			file: "model-first-token-timeout: 20m\nmodel-idle-timeout: 45s\nvision: true\ncontext-length: 32768\nbase-url: http://vllm:8000/v1\nmax-reply-tokens: 16384\n",
			want: llm.Options{BaseURL: "http://vllm:8000/v1", FirstTokenTimeout: 20 * time.Minute, Timeout: 45 * time.Second, Vision: &yes, ContextLength: 32768, MaxReplyTokens: 16384}},
		{name: "env over file",
			file: "model-first-token-timeout: 20m\nvision: true\n",
			env:  map[string]string{"ANALYST_MODEL_FIRST_TOKEN_TIMEOUT": "5m", "ANALYST_VISION": "false", "ANALYST_MODEL_IDLE_TIMEOUT": "0", "ANALYST_CONTEXT_LENGTH": "8192", "ANALYST_MAX_REPLY_TOKENS": "2048"},
			want: llm.Options{FirstTokenTimeout: 5 * time.Minute, Timeout: -1, Vision: &no, ContextLength: 8192, MaxReplyTokens: 2048}},
		{name: "flags over env",
			env:   map[string]string{"ANALYST_MODEL_FIRST_TOKEN_TIMEOUT": "5m", "ANALYST_VISION": "false", "ANALYST_MAX_REPLY_TOKENS": "2048"},
			flags: []string{"--model-first-token-timeout", "0", "--model-idle-timeout", "30s", "--vision", "true", "--context-length", "4096", "--max-reply-tokens", "1000"},
			want:  llm.Options{FirstTokenTimeout: -1, Timeout: 30 * time.Second, Vision: &yes, ContextLength: 4096, MaxReplyTokens: 1000}},
		{name: "vision auto",
			env:  map[string]string{"ANALYST_VISION": "auto"},
			want: llm.Options{FirstTokenTimeout: 10 * time.Minute, Timeout: 2 * time.Minute, MaxReplyTokens: llm.DefaultMaxReplyTokens}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configFor(t, tt.file, tt.env, tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			opts := got.ModelOptions()
			if opts.FirstTokenTimeout != tt.want.FirstTokenTimeout || opts.Timeout != tt.want.Timeout ||
				opts.ContextLength != tt.want.ContextLength || opts.BaseURL != tt.want.BaseURL || opts.MaxReplyTokens != tt.want.MaxReplyTokens ||
				(opts.Vision == nil) != (tt.want.Vision == nil) || (opts.Vision != nil && *opts.Vision != *tt.want.Vision) {
				t.Errorf("options = %+v (vision %v), want %+v (vision %v)", opts, deref(opts.Vision), tt.want, deref(tt.want.Vision))
			}
			for _, s := range []string{opts.FirstTokenTimeoutSetting, opts.TimeoutSetting} {
				if !strings.Contains(s, "--model-") || !strings.Contains(s, "ANALYST_MODEL_") {
					t.Errorf("setting named %q: want the flag and the variable", s)
				}
			}
			if s := opts.MaxReplyTokensSetting; s != "--max-reply-tokens, ANALYST_MAX_REPLY_TOKENS or max-reply-tokens: in the config file" {
				t.Errorf("completion limit named %q: want the flag, the variable and the key", s)
			}
		})
	}
}

// The model servers' own variables are read here, not in llm: OLLAMA_HOST;
// OPENAI_BASE_URL where base-url is not set; the key from the variable of
// the server (OLLAMA_API_KEY for ollama.com).
func TestModelServerFromEnvironment(t *testing.T) {
	keys := map[string]string{"OPENAI_API_KEY": "sk-openai", "OLLAMA_API_KEY": "ol-cloud"}
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{}
		for _, m := range []map[string]string{keys, extra} {
			for k, v := range m {
				env[k] = v
			}
		}
		return env
	}
	tests := []struct {
		name  string
		file  string
		env   map[string]string
		flags []string
		want  llm.Options // OllamaHost, BaseURL, APIKey
	}{
		{name: "none", want: llm.Options{}},
		{name: "OLLAMA_HOST", env: map[string]string{"OLLAMA_HOST": "gpu-box:11434"}, want: llm.Options{OllamaHost: "gpu-box:11434"}},
		{name: "OPENAI_BASE_URL and OPENAI_API_KEY", env: with(map[string]string{"OPENAI_BASE_URL": "http://vllm:8000/v1"}),
			want: llm.Options{BaseURL: "http://vllm:8000/v1", APIKey: "sk-openai"}},
		{name: "default server's key", env: keys, want: llm.Options{APIKey: "sk-openai"}},
		{name: "OLLAMA_API_KEY for ollama.com", env: with(map[string]string{"OPENAI_BASE_URL": "https://ollama.com/v1"}),
			want: llm.Options{BaseURL: "https://ollama.com/v1", APIKey: "ol-cloud"}},
		{name: "file over OPENAI_BASE_URL", file: "base-url: https://ollama.com/v1\n", env: with(map[string]string{"OPENAI_BASE_URL": "http://vllm:8000/v1"}),
			want: llm.Options{BaseURL: "https://ollama.com/v1", APIKey: "ol-cloud"}},
		{name: "flag over OPENAI_BASE_URL", env: with(map[string]string{"OPENAI_BASE_URL": "https://ollama.com/v1"}), flags: []string{"--base-url", "http://vllm:8000/v1"},
			want: llm.Options{BaseURL: "http://vllm:8000/v1", APIKey: "sk-openai"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := configFor(t, tt.file, tt.env, tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.ModelOptions(); got.OllamaHost != tt.want.OllamaHost || got.BaseURL != tt.want.BaseURL || got.APIKey != tt.want.APIKey {
				t.Errorf("host %q, base URL %q, key %q; want %q, %q, %q", got.OllamaHost, got.BaseURL, got.APIKey,
					tt.want.OllamaHost, tt.want.BaseURL, tt.want.APIKey)
			}
		})
	}
}

func TestModelOptionsBadValues(t *testing.T) {
	for env, want := range map[string]string{
		"ANALYST_MODEL_FIRST_TOKEN_TIMEOUT": "model-first-token-timeout must be a duration",
		"ANALYST_MODEL_IDLE_TIMEOUT":        "model-idle-timeout must be a duration",
		"ANALYST_VISION":                    "vision must be auto, true or false",
		"ANALYST_CONTEXT_LENGTH":            "context-length must be a number of tokens",
		"ANALYST_MAX_REPLY_TOKENS":          "max-reply-tokens must be a number of tokens of at least 256",
	} {
		_, err := configFor(t, "", map[string]string{env: "lots"}, nil)
		if err == nil || !strings.Contains(err.Error(), want) || exitCode(err) != ExitUsage {
			t.Errorf("%s=lots: err = %v (exit %d), want a usage error with %q", env, err, exitCode(err), want)
		}
	}
}

// runConfig runs `analyst run` with flags, stopping before any work, and
// returns the configuration it resolved.
func configFor(t *testing.T, file string, env map[string]string, flags []string) (*Config, error) {
	t.Helper()
	cmdEnv(t, file, env)
	var cfg *Config
	swap := func(f *Factory) *cobra.Command {
		return newCmdRun(f, func(context.Context, *RunOptions) error {
			var err error
			cfg, err = f.Config()
			return err
		})
	}
	err := execute(t, testFactory(), swap, append(append([]string{"run"}, flags...), "data.csv")...)
	return cfg, err
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
