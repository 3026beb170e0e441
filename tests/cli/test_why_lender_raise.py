"""`why` offers a raise of another queue's quota its blame names (what that queue lends the workload's
queue): that quota helps only through what it lends, capped by its lending limit (and the borrower's
borrowing limit), and only with the flavor's other resources too, so they are raised together; and
where a blamed quota's raise alone was proven to admit nothing, a note says so (issue 19:
gpu_state(2000)'s team-04/train-01071 blames team-00/02/06/08's GPU quotas, and no fix changed them
nor said why)."""

from __future__ import annotations

import json

POLICY = """\
flavor f {}
priority mid = 100 default
namespace t {}
namespace u {}
cohort c {}
cluster_queue q {
  cohort = c
  resources cpu, nvidia.com/gpu {
    flavor f { cpu = 8  nvidia.com/gpu = 2 }
  }
}
cluster_queue lender {
  cohort = c
  resources cpu, nvidia.com/gpu {
    flavor f { cpu = 2 lend 1  nvidia.com/gpu = 2 lend 1 }
  }
}
local_queue t/lq -> q
local_queue u/lq -> lender
workload u/own {
  queue = lq
  created = "2026-11-20T07:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 1  nvidia.com/gpu = 2 }
  }
  admitted {
    cluster_queue = lender
    pod_group main {
      count = 1
      flavor = f
    }
  }
}
workload t/held {
  queue = lq
  created = "2026-11-20T08:00:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 2  nvidia.com/gpu = 2 }
  }
  admitted {
    cluster_queue = q
    pod_group main {
      count = 1
      flavor = f
    }
  }
}
workload t/ahead {
  queue = lq
  created = "2026-11-20T08:01:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4  nvidia.com/gpu = 1 }
  }
}
workload t/mine {
  queue = lq
  created = "2026-11-20T08:02:00Z"
  pod_group main {
    count = 1
    requests = { cpu = 4  nvidia.com/gpu = 1 }
  }
}
"""
LENDER = "cpu = 2 lend 1  nvidia.com/gpu = 2 lend 1"
MINE = "cpu = 8  nvidia.com/gpu = 2 }"


def _why(run, text: str) -> dict:
    run.write("p.kad", text)
    result = run("why", "t/mine", ".", "--fixes", "8", "--format", "json")
    assert result.exit_code == 1, result.output
    return json.loads(result.output)


def _admitted(run, text: str) -> bool:
    run.write("p.kad", text)
    decided = json.loads(run("admit", ".", "--format", "json").output)["decisions"]
    return {d["workload"]: d["admitted"] for d in decided}["t/mine"]


def _lender_fixes(out: dict) -> list[dict]:
    return [f for f in out["fixes"] if any(c["subject"] == "cluster_queue `lender`" for c in f["changes"])]


def test_the_lenders_quotas_are_raised_with_its_lending_limits(run):
    out = _why(run, POLICY)
    blamed = [b["id"] for b in out["cores"][0] if b["id"].startswith("quota|")]
    assert "quota|cq:lender|f|nvidia.com/gpu|nominal" in blamed
    lend = _lender_fixes(out)
    assert len(lend) == 1 and lend[0]["by"] == "platform", out["fixes"]
    assert [(c["field"], c["old"], c["new"]) for c in lend[0]["changes"]] == [
        ("`cpu` in flavor `f`", "2", "10"), ("`lend` of `cpu` in flavor `f`", "1", "9"),
        ("`nvidia.com/gpu` in flavor `f`", "2", "4"), ("`lend` of `nvidia.com/gpu` in flavor `f`", "1", "3")]
    assert ("(together: no raise of `lender`'s `nvidia.com/gpu` quota in `f` alone was found to admit it)"
            in lend[0]["message"])
    assert lend[0]["outcome"]["admitted"] is True
    # it admits it only by admitting the one ahead of it too, and says so
    assert lend[0]["effects_summary"]["admits_all_ahead"] is True


def test_the_claims_hold_when_the_edited_input_is_decided_again(run):
    """The fix admits it; the lender's GPU quota alone (at the value the note names, or far more) does
    not, nor the lender's quotas without its lending limits (the raise goes to what it keeps)."""
    assert _admitted(run, POLICY.replace(LENDER, "cpu = 10 lend 9  nvidia.com/gpu = 4 lend 3"))
    for lender in ("cpu = 2 lend 1  nvidia.com/gpu = 4 lend 1", "cpu = 2 lend 1  nvidia.com/gpu = 100 lend 1",
                   "cpu = 10 lend 1  nvidia.com/gpu = 4 lend 1"):
        assert not _admitted(run, POLICY.replace(LENDER, lender)), lender
    for mine in ("cpu = 8  nvidia.com/gpu = 4 }", "cpu = 8  nvidia.com/gpu = 100 }"):
        assert not _admitted(run, POLICY.replace(MINE, mine)), mine


def test_a_note_names_the_quotas_whose_raise_alone_admits_nothing(run):
    out = _why(run, POLICY)
    head = "raising any one of these quotas alone admits nothing (decided again with each raised"
    tail = ": still pending, and where that run ends no value of it lets it fit): "
    note = (f"{head} to the value shown{tail}cluster_queue `q`'s `nvidia.com/gpu` in f (4); "
            "cluster_queue `lender`'s `nvidia.com/gpu` in f (4)")
    # and that the lender's raise was decided at one size (q's raise, found first, admits it)
    once = ("a lender's raise was decided at one size, what this workload and the pending workloads ahead of it "
            "in its cohort tree need, and not searched smaller (fixes were found without it): what `lender` in "
            "`f` lends")
    assert out["fixes_notes"] == [once, note]
    assert f"   = note: {note}\n" in run("why", "t/mine", ".", "--all").output
    # the text output, where a fix of the platform's is shown, leaves them to `--all` and says so
    text = run("why", "t/mine", ".").output
    assert head not in text and "`--all`: 2 more notes, each fix in full" in text
    assert "  by the platform team" in text


def test_the_borrowers_borrowing_limit_is_raised_too(run):
    text = POLICY.replace(MINE, "cpu = 8  nvidia.com/gpu = 2 borrow 1 }")
    lend = _lender_fixes(_why(run, text))
    assert len(lend) == 1, lend
    assert [(c["subject"], c["field"], c["old"], c["new"]) for c in lend[0]["changes"]][-1] == (
        "cluster_queue `q`", "`borrow` of `nvidia.com/gpu` in flavor `f`", "1", "3")
    edited = text.replace(LENDER, "cpu = 10 lend 9  nvidia.com/gpu = 4 lend 3").replace("= 2 borrow 1", "= 2 borrow 3")
    assert _admitted(run, edited)
    assert not _admitted(run, text.replace(LENDER, "cpu = 10 lend 9  nvidia.com/gpu = 4 lend 3"))


def test_no_note_where_a_raise_alone_admits_it(run):
    """A lender whose lending limit is its whole quota and with cpu to spare: its GPU raise alone admits
    it, no note, no raise together."""
    out = _why(run, POLICY.replace(LENDER, "cpu = 20  nvidia.com/gpu = 2")
               .replace(MINE, "cpu = 20  nvidia.com/gpu = 2 }"))
    assert [[(c["field"], c["new"]) for c in f["changes"]] for f in _lender_fixes(out)] == [
        [("`nvidia.com/gpu` in flavor `f`", "4")]]
    assert out["fixes_notes"] == []
    assert "alone was found" not in json.dumps(out["fixes"])
