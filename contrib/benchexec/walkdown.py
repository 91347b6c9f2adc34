# BenchExec tool-info module for walkdown, a test generator for C programs
# (Test-Comp style: it writes a Test-Comp test suite into test-suite/).
#
# Install: copy (or link) this file into the `benchexec/tools/` directory of
# a BenchExec installation, then refer to the tool as `walkdown`
# (`python3 -m benchexec.test_tool_info walkdown --tool-directory DIR`,
# `<benchmark tool="walkdown">`), where DIR holds the `walkdown` binary
# (directly, in bin/, or in target/release/ of a source checkout).
# walkdown calls clang-14 and opt-14 at run time (Debian packages clang-14,
# llvm-14); they must be on the PATH inside the run's container.

import benchexec.result as result
import benchexec.tools.template
from benchexec.tools.sv_benchmarks_util import ILP32, LP64, get_data_model_from_task
from benchexec.tools.template import ToolNotFoundException


class Tool(benchexec.tools.template.BaseTool2):
    """
    walkdown: test generation for C by concolic search steered by abstract
    interpretation, with a bounded model checker in a portfolio.
    `walkdown gen` writes the suite to output/test-suite/ (metadata.xml and
    one testcase XML a test), report.json, errors.sarif and an HTML report.
    """

    # Where the binary may lie below the tool directory.
    SUBDIRS = ["", "bin", "target/release"]

    def executable(self, tool_locator):
        missing = None
        for subdir in self.SUBDIRS:
            try:
                return tool_locator.find_executable("walkdown", subdir=subdir)
            except ToolNotFoundException as e:
                missing = e
        raise missing

    def program_files(self, executable):
        return [executable]

    def name(self):
        return "walkdown"

    def version(self, executable):
        # `walkdown --version` prints "walkdown 0.1.0".
        return self._version_from_tool(executable, line_prefix="walkdown").strip()

    def cmdline(self, executable, options, task, rlimits):
        # Exit code 0 also when a test reaches an error: BenchExec reads
        # any other code as a failure of the tool.
        cmd = [executable, "gen", "--no-error-exit"] + list(options)
        if "--time" not in options:
            # The budget: a little less than the CPU-time (or wall-time)
            # limit, so that the suite and the report are written in time.
            limit = rlimits.cputime or rlimits.walltime
            if limit:
                cmd += ["--time", str(max(1, int(limit * 0.9)))]
        if "--jobs" not in options and rlimits.cpu_cores:
            cmd += ["--jobs", str(rlimits.cpu_cores)]
        if "--data-model" not in options:
            data_model = get_data_model_from_task(task, {ILP32: "ILP32", LP64: "LP64"})
            if data_model:
                cmd += ["--data-model", data_model]
        if "--property" not in options and task.property_file:
            prop = task.property_file.rsplit("/", 1)[-1]
            if prop in ("coverage-error-call.prp", "unreach-call.prp"):
                cmd += ["--property", "coverage-error"]
            elif prop == "coverage-branches.prp":
                cmd += ["--property", "coverage-branches"]
        if "--out" not in options:
            cmd += ["--out", "output"]
        return cmd + [task.single_input_file]

    def determine_result(self, run):
        """
        `walkdown gen --no-error-exit` exits with 0 (suite written, whether
        or not a test reaches an error), 2 (bad input: the last line says
        why) or 3 (a proof conflict: a bug in walkdown). Its last line is
        `suite: DIR` when the suite is complete.
        """
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        code = run.exit_code.value
        wrote_suite = any(line.startswith("suite: ") for line in run.output)
        if code in (0, 1) and wrote_suite:
            return result.RESULT_DONE
        if code == 3:
            return "ERROR (proof conflict)"
        for line in reversed(run.output):
            if line.startswith("walkdown: error:"):
                words = line[len("walkdown: error:"):].strip()
                if "unsupported" in words or "not supported" in words:
                    return "ERROR (unsupported)"
                return "ERROR (walkdown)"
        if run.exit_code.signal:
            return f"ERROR (signal {run.exit_code.signal})"
        return result.RESULT_ERROR

    def get_value_from_output(self, output, identifier):
        # `walkdown: N goals: C covered, U unreachable, ...`: the number
        # before `identifier` (e.g. "covered", "unreachable", "open", "tests").
        for line in output:
            if line.startswith("walkdown: ") and " goals: " in line:
                words = line.replace(",", " ").replace(";", " ").split()
                for i, word in enumerate(words[1:], 1):
                    if word == identifier and words[i - 1].isdigit():
                        return words[i - 1]
        return None
