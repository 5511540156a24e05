// The command line as a user types it: options a subcommand does not honour are refused by name, values
// out of range are refused before any input is read, and every refusal exits 1.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct Result {
  int code = -1;
  std::string output;
};

Result quanta(const std::string& args) {
  Result r;
  FILE* p = popen((std::string(QUANTA_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) r.output += buf;
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void expect_refused(const std::string& args, const std::string& named) {
  const Result r = quanta(args);
  EXPECT_EQ(r.code, 1) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output << "\nlacks: " << named;
}

}  // namespace

TEST(Cli, OptionsASubcommandDoesNotHonourAreRefused) {
  expect_refused("linelist-convert in.inp -o out.h5 --gpu-mem-limit 8G", "--gpu-mem-limit");
  expect_refused("mosfet config.toml --gpu-mem-limit banana", "--gpu-mem-limit");
  expect_refused("linelist-convert in.inp -o out.h5 --backend cuda", "--backend");
  expect_refused("linelist-convert in.inp -o out.h5 --threads -5", "--threads");
  expect_refused("linelist in.inp --levels a.h5 --checkpoints dir", "--checkpoints");
}

TEST(Cli, BadValuesAreRefusedBeforeAnyInputIsRead) {
  expect_refused("phonon in --backend gpu", "--backend");
  expect_refused("phonon in --gpu-mem-limit banana", "--gpu-mem-limit");
  expect_refused("kbe config.toml --gpu-mem-limit banana", "--gpu-mem-limit");
  expect_refused("phonon in --threads -1", "--threads");
  expect_refused("phonon in --strategy fastest", "--strategy");
  expect_refused("linelist in.inp --batch -1", "--batch");
  expect_refused("linelist in.inp --dipole-blocks -1", "--dipole-blocks");
  expect_refused("linelist in.inp --method fast", "--method");
  expect_refused("kbe config.toml --stop-after -3", "--stop-after");
  expect_refused("gw --gpu-mem-limit 0", "--gpu-mem-limit");
  expect_refused("gw-pseudobands --fname_in a --fname_in_q b --fname_out c --fname_out_q d --N_xi_cond 1", "--N_xi_cond");
  expect_refused("gw-pseudobands --fname_in a --fname_in_q b --fname_out c --fname_out_q d --NNS 1", "--NNS");
  expect_refused("frobnicate", "subcommand");
}

TEST(Cli, HelpAndVersionExitZero) {
  EXPECT_EQ(quanta("--version").code, 0);
  for (const char* sub : {"phonon", "kbe", "mosfet", "linelist", "linelist-convert", "gw", "gw-pseudobands", "info"}) {
    const Result r = quanta(std::string(sub) + " --help");
    EXPECT_EQ(r.code, 0) << sub << "\n" << r.output;
    EXPECT_NE(r.output.find("Usage:"), std::string::npos) << r.output;
  }
}
