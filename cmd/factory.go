package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/viper"

	"github.com/analyst-cli/analyst/internal/command"
	"github.com/analyst-cli/analyst/internal/iostreams"
	"github.com/analyst-cli/analyst/internal/units"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/image"
)

// Factory gives commands what they share: streams, configuration and the
// runner for external programs.
type Factory struct {
	IO     *iostreams.IOStreams
	Runner command.Runner
	// viper holds flags, environment and the config file, in that order.
	viper *viper.Viper

	once   sync.Once
	config *Config
	cfgErr error
}

// NewFactory returns a Factory for the given streams.
func NewFactory(io *iostreams.IOStreams) *Factory {
	return &Factory{IO: io, Runner: command.Exec{}, viper: newViper()}
}

// Config is the resolved configuration.
type Config struct {
	File     string // the config file read, "" if none
	CacheDir string
	Runtime  string // forced OCI runtime; "" means detect
	Limits   kernel.Limits

	// The model stages.
	Model         string        // provider:model; "" for none
	BaseURL       string        // OpenAI-compatible API root; "" for the provider's default
	MaxTurns      int           // model turns per question
	ReflectRounds int           // reflection rounds per question (0: none)
	RunTimeout    time.Duration // 0: none

	// NAValues are the missing-value markers of the loader; nil: its defaults.
	NAValues []string
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
	keyCellTimeout = "kernel.cell-timeout"

	keyModel         = "model"
	keyBaseURL       = "base-url"
	keyMaxTurns      = "max-turns"
	keyReflectRounds = "reflect-rounds"
	keyRunTimeout    = "run-timeout"
	keyNAValues      = "na-values"
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
	v.SetDefault(keyCellTimeout, d.CellTimeout.String())
	v.SetDefault(keyMaxTurns, 10)
	v.SetDefault(keyReflectRounds, 1)
	v.SetDefault(keyRunTimeout, "0s")
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
	file := v.GetString(keyConfig)
	explicit := file != ""
	if !explicit {
		file = defaultConfigFile()
	}
	cfg := &Config{}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			if _, statErr := os.Stat(file); statErr == nil || explicit {
				return nil, usageErrorf("reading config file %s: %v", file, err)
			}
		} else {
			cfg.File = file
		}
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

	l := kernel.DefaultLimits()
	var err error
	if l.MemoryBytes, err = units.ParseBytes(v.GetString(keyMemory)); err != nil {
		return nil, usageErrorf("%s: %v", keyMemory, err)
	}
	if l.TmpBytes, err = units.ParseBytes(v.GetString(keyTmpSize)); err != nil {
		return nil, usageErrorf("%s: %v", keyTmpSize, err)
	}
	if l.Pids = v.GetInt(keyPids); l.Pids < 16 {
		return nil, usageErrorf("%s must be at least 16, got %q", keyPids, v.GetString(keyPids))
	}
	if l.CPUs = v.GetFloat64(keyCPUs); l.CPUs <= 0 {
		return nil, usageErrorf("%s must be a positive number, got %q", keyCPUs, v.GetString(keyCPUs))
	}
	if l.CellTimeout, err = time.ParseDuration(v.GetString(keyCellTimeout)); err != nil || l.CellTimeout <= 0 {
		return nil, usageErrorf("%s must be a duration like 60s or 5m, got %q", keyCellTimeout, v.GetString(keyCellTimeout))
	}
	cfg.Limits = l

	cfg.Model = strings.TrimSpace(v.GetString(keyModel))
	cfg.BaseURL = v.GetString(keyBaseURL)
	if cfg.MaxTurns = v.GetInt(keyMaxTurns); cfg.MaxTurns < 1 {
		return nil, usageErrorf("%s must be at least 1, got %q", keyMaxTurns, v.GetString(keyMaxTurns))
	}
	if cfg.ReflectRounds = v.GetInt(keyReflectRounds); cfg.ReflectRounds < 0 {
		return nil, usageErrorf("%s must be 0 or more, got %q", keyReflectRounds, v.GetString(keyReflectRounds))
	}
	if cfg.RunTimeout, err = time.ParseDuration(v.GetString(keyRunTimeout)); err != nil || cfg.RunTimeout < 0 {
		return nil, usageErrorf("%s must be a duration like 30m (0 for none), got %q", keyRunTimeout, v.GetString(keyRunTimeout))
	}
	cfg.NAValues = naValues(v)
	return cfg, nil
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
