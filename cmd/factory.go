package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/analyst-cli/analyst/agent"
	"github.com/analyst-cli/analyst/baseline"
	"github.com/analyst-cli/analyst/eda"
	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/image"
	"github.com/analyst-cli/analyst/llm"
	"github.com/analyst-cli/analyst/pipeline"
)

// Factory gives commands what they share: streams, configuration, the
// runner for external programs, and the two things a command reaches
// outside this process for: a model server and a kernel. Tests swap those
// (as cli/cli's Factory swaps its HttpClient) to run commands without a
// model server or podman.
type Factory struct {
	IO     *iostreams.IOStreams
	Runner command.Runner
	// ModelClient makes the client of a model named provider:name.
	ModelClient func(spec string, opts llm.Options) (llm.Client, error)
	// KernelSetup finds the kernel image and probes the host.
	KernelSetup func(ctx context.Context) (*kernelSetup, error)
	// viper holds flags, environment and the config file, in that order.
	viper *viper.Viper

	once   sync.Once
	config *Config
	cfgErr error
}

// NewFactory returns a Factory for the given streams.
func NewFactory(io *iostreams.IOStreams) *Factory {
	f := &Factory{IO: io, Runner: command.Exec{}, ModelClient: llm.New, viper: newViper()}
	f.KernelSetup = f.kernelSetup
	return f
}

// Config is the resolved configuration.
type Config struct {
	File     string // the config file read, "" if none
	CacheDir string
	Runtime  string // forced OCI runtime; "" means detect
	Limits   kernel.Limits
	// RequireLimits refuses to start kernels where memory and processes
	// cannot be limited in total (kernel.require-limits).
	RequireLimits bool

	// The model stages.
	Model   string // provider:model; "" for none
	BaseURL string // OpenAI-compatible API root; "" for the provider's default
	// OllamaHost and APIKey come from the model servers' own variables
	// (OLLAMA_HOST; llm.APIKeyVar's), read here: llm reads no environment.
	OllamaHost    string        // "" for the default
	APIKey        string        // "" for none
	MaxTurns      int           // model turns per question
	ReflectRounds int           // reflection rounds per question (0: none)
	RunTimeout    time.Duration // 0: none
	// Explore: with a model, the run explores the data (goals, charts,
	// findings) before any question; Goals is how many goals it asks for.
	Explore bool
	Goals   int

	// The model requests.
	FirstTokenTimeout time.Duration // per request, until the reply starts; 0: none
	IdleTimeout       time.Duration // per request, between streamed chunks; 0: none
	Vision            *bool         // the model reads images; nil: auto
	ContextLength     int           // the model's window in tokens; 0: as the server says
	MaxReplyTokens    int           // the completion limit of every request

	// NAValues are the missing-value markers of the loader; nil: its defaults.
	NAValues []string
	// OutOfCore is auto, true or false (pipeline.OutOfCoreAuto, ...).
	OutOfCore string

	// FailOn is the level of a change since --baseline that makes run exit
	// with ExitChanges ("" for never); ChangeRules judge the changes.
	FailOn      string
	ChangeRules eda.ChangeRules
}

// ModelOptions are the llm options the configuration sets: analyst run's,
// replay's and each eval model's (a benchmark measures what ships).
func (c *Config) ModelOptions() llm.Options {
	none := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1 // llm: no bound
		}
		return d
	}
	return llm.Options{
		OllamaHost:               c.OllamaHost,
		BaseURL:                  c.BaseURL,
		APIKey:                   c.APIKey,
		Vision:                   c.Vision,
		ContextLength:            c.ContextLength,
		MaxReplyTokens:           c.MaxReplyTokens,
		MaxReplyTokensSetting:    settingName(keyMaxReplyTokens),
		FirstTokenTimeout:        none(c.FirstTokenTimeout),
		FirstTokenTimeoutSetting: settingName(keyFirstTokenTimeout),
		Timeout:                  none(c.IdleTimeout),
		TimeoutSetting:           settingName(keyIdleTimeout),
	}
}

// The model servers' own variables, read beside ANALYST_* (the API key's
// variable is llm.APIKeyVar's).
const (
	envOllamaHost = "OLLAMA_HOST"
	envBaseURL    = "OPENAI_BASE_URL"
)

// readModelServer reads where the model server is and its key: base-url as
// set (flag, ANALYST_BASE_URL, file), else OPENAI_BASE_URL; OLLAMA_HOST;
// and the key from the variable that fits the server.
func readModelServer(v *viper.Viper, cfg *Config) {
	cfg.BaseURL = v.GetString(keyBaseURL)
	if cfg.BaseURL == "" {
		cfg.BaseURL = os.Getenv(envBaseURL)
	}
	cfg.OllamaHost = os.Getenv(envOllamaHost)
	cfg.APIKey = os.Getenv(llm.APIKeyVar(cfg.BaseURL))
}

// settingName names a setting every way it can be set, for messages.
func settingName(key string) string {
	return fmt.Sprintf("--%s, %s or %s: in the config file", key, envName(key), key)
}

// envName is the environment variable of a configuration key.
func envName(key string) string {
	return "ANALYST_" + strings.NewReplacer(".", "_", "-", "_").Replace(strings.ToUpper(key))
}

// Configuration keys, also the names of flags and (with ANALYST_ and
// underscores) of environment variables.
const (
	keyConfig      = "config"
	keyCacheDir    = "cache-dir"
	keyRuntime     = "runtime"
	keyMemory      = "kernel.memory"
	keyPids        = "kernel.pids"
	keyCPUs        = "kernel.cpus"
	keyTmpSize     = "kernel.tmp-size"
	keyOutputSize  = "kernel.output-size"
	keyRequireLims = "kernel.require-limits"
	keyCellTimeout = "kernel.cell-timeout"

	keyModel         = "model"
	keyBaseURL       = "base-url"
	keyMaxTurns      = "max-turns"
	keyReflectRounds = "reflect-rounds"
	keyRunTimeout    = "run-timeout"
	keyExplore       = "explore"
	keyGoals         = "goals"

	keyFirstTokenTimeout = "model-first-token-timeout"
	keyIdleTimeout       = "model-idle-timeout"
	keyVision            = "vision"
	keyContextLength     = "context-length"
	keyMaxReplyTokens    = "max-reply-tokens"
	keyNAValues          = "na-values"
	keyOutOfCore         = "run.out-of-core"

	keyFailOn             = "baseline.fail-on"
	keyBaselineThresholds = "baseline.thresholds"
	keyBaselineLevels     = "baseline.levels"
	keyBaselineColumns    = "baseline.columns"
)

func newViper() *viper.Viper {
	v := viper.New()
	v.SetEnvPrefix("ANALYST")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	v.AutomaticEnv()
	d := kernel.DefaultLimits()
	v.SetDefault(keyMemory, units.Bytes(d.MemoryBytes))
	v.SetDefault(keyPids, d.Pids)
	v.SetDefault(keyCPUs, d.CPUs)
	v.SetDefault(keyTmpSize, units.Bytes(d.TmpBytes))
	v.SetDefault(keyOutputSize, units.Bytes(d.OutputBytes))
	v.SetDefault(keyRequireLims, false)
	v.SetDefault(keyOutOfCore, pipeline.OutOfCoreAuto)
	v.SetDefault(keyCellTimeout, d.CellTimeout.String())
	v.SetDefault(keyMaxTurns, agent.DefaultMaxTurns)
	v.SetDefault(keyReflectRounds, agent.DefaultReflectRounds)
	v.SetDefault(keyRunTimeout, "0s")
	v.SetDefault(keyExplore, true)
	v.SetDefault(keyGoals, agent.DefaultGoals)
	v.SetDefault(keyFirstTokenTimeout, llm.DefaultFirstTokenTimeout.String())
	v.SetDefault(keyIdleTimeout, llm.DefaultIdleTimeout.String())
	v.SetDefault(keyVision, "auto")
	v.SetDefault(keyContextLength, 0)
	v.SetDefault(keyMaxReplyTokens, llm.DefaultMaxReplyTokens)
	return v
}

// defaultConfigFile is where the config file lives unless --config or
// ANALYST_CONFIG says otherwise.
func defaultConfigFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "analyst", "config.yaml")
}

// Config reads the configuration once: flags > environment > file > defaults.
func (f *Factory) Config() (*Config, error) {
	f.once.Do(func() { f.config, f.cfgErr = f.readConfig() })
	return f.config, f.cfgErr
}

func (f *Factory) readConfig() (*Config, error) {
	v := f.viper
	cfg := &Config{}
	var err error
	if cfg.File, err = readConfigFile(v); err != nil {
		return nil, err
	}
	cfg.CacheDir = v.GetString(keyCacheDir)
	if cfg.CacheDir == "" {
		dir, err := image.DefaultCacheDir()
		if err != nil {
			return nil, fmt.Errorf("finding the cache folder: %w (set ANALYST_CACHE_DIR)", err)
		}
		cfg.CacheDir = dir
	}
	cfg.Runtime = v.GetString(keyRuntime)
	if err := readKernelConfig(v, cfg); err != nil {
		return nil, err
	}
	if err := readModelConfig(v, cfg); err != nil {
		return nil, err
	}
	if err := readModelRequestConfig(v, cfg); err != nil {
		return nil, err
	}
	cfg.NAValues = naValues(v)
	if cfg.OutOfCore, err = pipeline.ParseOutOfCore(v.GetString(keyOutOfCore)); err != nil {
		return nil, usageErrorf("%s must be auto, true or false, got %q", keyOutOfCore, v.GetString(keyOutOfCore))
	}
	if err := baselineConfig(v, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// readConfigFile reads the config file into v: --config or ANALYST_CONFIG
// (which must be there), else the default file if there is one. It
// returns the file read, "" if none.
func readConfigFile(v *viper.Viper) (string, error) {
	file := v.GetString(keyConfig)
	explicit := file != ""
	if !explicit {
		file = defaultConfigFile()
	}
	if file == "" {
		return "", nil
	}
	v.SetConfigFile(file)
	v.SetConfigType("yaml")
	if err := v.ReadInConfig(); err != nil {
		if _, statErr := os.Stat(file); statErr == nil || explicit {
			return "", usageErrorf("reading config file %s: %v", file, err)
		}
		return "", nil
	}
	return file, nil
}

// readKernelConfig reads the kernel's limits and whether they must hold.
func readKernelConfig(v *viper.Viper, cfg *Config) error {
	l := kernel.DefaultLimits()
	var err error
	if l.MemoryBytes, err = units.ParseBytes(v.GetString(keyMemory)); err != nil {
		return usageErrorf("%s: %v", keyMemory, err)
	}
	if l.TmpBytes, err = units.ParseBytes(v.GetString(keyTmpSize)); err != nil {
		return usageErrorf("%s: %v", keyTmpSize, err)
	}
	if l.OutputBytes, err = units.ParseBytes(v.GetString(keyOutputSize)); err != nil || l.OutputBytes < 1<<20 {
		return usageErrorf("%s must be a size of at least 1MiB, like 256MiB, got %q", keyOutputSize, v.GetString(keyOutputSize))
	}
	if cfg.RequireLimits, err = strconv.ParseBool(v.GetString(keyRequireLims)); err != nil {
		return usageErrorf("%s must be true or false, got %q", keyRequireLims, v.GetString(keyRequireLims))
	}
	if l.Pids = v.GetInt(keyPids); l.Pids < 16 {
		return usageErrorf("%s must be at least 16, got %q", keyPids, v.GetString(keyPids))
	}
	if l.CPUs = v.GetFloat64(keyCPUs); l.CPUs <= 0 {
		return usageErrorf("%s must be a positive number, got %q", keyCPUs, v.GetString(keyCPUs))
	}
	if l.CellTimeout, err = time.ParseDuration(v.GetString(keyCellTimeout)); err != nil || l.CellTimeout <= 0 {
		return usageErrorf("%s must be a duration like 60s or 5m, got %q", keyCellTimeout, v.GetString(keyCellTimeout))
	}
	cfg.Limits = l
	return nil
}

// readModelConfig reads the model, its server and the bounds of the model
// stages.
func readModelConfig(v *viper.Viper, cfg *Config) error {
	cfg.Model = strings.TrimSpace(v.GetString(keyModel))
	readModelServer(v, cfg)
	if cfg.MaxTurns = v.GetInt(keyMaxTurns); cfg.MaxTurns < 1 {
		return usageErrorf("%s must be at least 1, got %q", keyMaxTurns, v.GetString(keyMaxTurns))
	}
	if cfg.ReflectRounds = v.GetInt(keyReflectRounds); cfg.ReflectRounds < 0 {
		return usageErrorf("%s must be 0 or more, got %q", keyReflectRounds, v.GetString(keyReflectRounds))
	}
	var err error
	if cfg.Explore, err = strconv.ParseBool(strings.TrimSpace(v.GetString(keyExplore))); err != nil {
		return usageErrorf("%s must be true or false, got %q", keyExplore, v.GetString(keyExplore))
	}
	if cfg.Goals = v.GetInt(keyGoals); cfg.Goals < 1 {
		return usageErrorf("%s must be at least 1, got %q", keyGoals, v.GetString(keyGoals))
	}
	if cfg.RunTimeout, err = time.ParseDuration(v.GetString(keyRunTimeout)); err != nil || cfg.RunTimeout < 0 {
		return usageErrorf("%s must be a duration like 30m (0 for none), got %q", keyRunTimeout, v.GetString(keyRunTimeout))
	}
	return nil
}

// readModelRequestConfig reads the settings of each model request: its
// time limits, vision, the context length and the completion limit.
func readModelRequestConfig(v *viper.Viper, cfg *Config) error {
	var err error
	for key, d := range map[string]*time.Duration{keyFirstTokenTimeout: &cfg.FirstTokenTimeout, keyIdleTimeout: &cfg.IdleTimeout} {
		if *d, err = time.ParseDuration(v.GetString(key)); err != nil || *d < 0 {
			return usageErrorf("%s must be a duration like 10m or 90s (0 for none), got %q", key, v.GetString(key))
		}
	}
	switch vision := strings.ToLower(strings.TrimSpace(v.GetString(keyVision))); vision {
	case "auto", "":
	case "true", "false":
		on := vision == "true"
		cfg.Vision = &on
	default:
		return usageErrorf("%s must be auto, true or false, got %q", keyVision, v.GetString(keyVision))
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v.GetString(keyContextLength))); err != nil || n < 0 {
		return usageErrorf("%s must be a number of tokens, e.g. 32768 (0: as the server says), got %q", keyContextLength, v.GetString(keyContextLength))
	} else {
		cfg.ContextLength = n
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v.GetString(keyMaxReplyTokens))); err != nil || n < minReplyTokens {
		return usageErrorf("%s must be a number of tokens of at least %d, e.g. %d, got %q", keyMaxReplyTokens, minReplyTokens, llm.DefaultMaxReplyTokens, v.GetString(keyMaxReplyTokens))
	} else {
		cfg.MaxReplyTokens = n
	}
	return nil
}

// baselineConfig reads how changes since a baseline are judged: the
// level --fail-on stops at, and the `baseline:` thresholds and levels.
func baselineConfig(v *viper.Viper, cfg *Config) error {
	switch failOn := strings.ToLower(strings.TrimSpace(v.GetString(keyFailOn))); failOn {
	case "", "never":
	case eda.LevelWarn, eda.LevelFail:
		cfg.FailOn = failOn
	default:
		return usageErrorf("%s must be warn, fail or never, got %q", keyFailOn, v.GetString(keyFailOn))
	}
	rules, err := baseline.Rules(baseline.Settings{Thresholds: v.Get(keyBaselineThresholds), Levels: v.Get(keyBaselineLevels),
		Columns: v.Get(keyBaselineColumns)})
	if err != nil {
		return usageErrorf("config: %v", err)
	}
	cfg.ChangeRules = rules
	return nil
}

// minReplyTokens is the smallest completion limit taken: below it, no
// code cell fits in a reply.
const minReplyTokens = 256

// addModelFlags adds the flags of the model requests to a command that asks
// a model.
func addModelFlags(c *cobra.Command) {
	fl := c.Flags()
	fl.Duration("model-first-token-timeout", 0, "longest wait for a model reply to start, loading included; 0 for none (key model-first-token-timeout; default "+shortDuration(llm.DefaultFirstTokenTimeout)+")")
	fl.Duration("model-idle-timeout", 0, "longest pause inside a streamed model reply; 0 for none (key model-idle-timeout; default "+shortDuration(llm.DefaultIdleTimeout)+")")
	fl.String("vision", "", "whether the model reads images: auto, true or false; auto asks Ollama, and on OpenAI-compatible servers is true only for OpenAI's vision models (key vision)")
	fl.Int("context-length", 0, "the model's context window in tokens, overriding what the server reports (key context-length; default: as the server says)")
	fl.Int("max-reply-tokens", 0, fmt.Sprintf("the completion limit of every model request, in tokens (max_tokens, num_predict), kept within the model's context; a reply that runs on past it without ending is cut and, the second time, ends the run (key max-reply-tokens; default %d; reasoning models need 16384 or more)", llm.DefaultMaxReplyTokens))
	for _, key := range []string{keyFirstTokenTimeout, keyIdleTimeout, keyVision, keyContextLength, keyMaxReplyTokens} {
		_ = fl.SetAnnotation(key, viperKey, []string{key})
	}
}

// naValues reads the missing-value markers: a YAML list, or text with the
// markers separated by commas (flag, environment); nil when not set.
func naValues(v *viper.Viper) []string {
	if !v.IsSet(keyNAValues) {
		return nil
	}
	out := []string{}
	switch raw := v.Get(keyNAValues).(type) {
	case []any:
		for _, m := range raw {
			out = append(out, fmt.Sprint(m))
		}
	default:
		if text := v.GetString(keyNAValues); text != "" {
			out = append(out, strings.Split(text, ",")...)
		}
	}
	return out
}

// shortDuration is d as a person writes it: 10m, not 10m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
