

def test_a_family_run_cost_says_when_and_how_loaded_it_was_measured():
    from verify.families import cost_lines
    costs = {"measured": {"date": "2026-12-02", "cores": 2, "load": [4.1, 5.0]},
             "families": {"sphere": [{"params": {"n": 100, "d": 40, "p": 30}, "seconds": 101.8,
                                      "events": 3915, "horizon": 600.0}]}}
    lines = cost_lines("sphere", costs)
    assert ("2026-12-02, 2 cores, one thread, load average 4.1-5 (other jobs beside it: the "
            "times are upper bounds)") in lines[0]
    assert "n=100 d=40 p=30" in lines[1] and "101.8 s" in lines[1] and "3915 events" in lines[1]
    assert cost_lines("no-such-family", costs) == []


def test_a_run_cost_measured_on_a_quiet_machine_does_not_say_other_jobs_ran():
    from verify.families import cost_lines
    costs = {"measured": {"date": "2026-12-02", "cores": 2, "load": [0.9, 1.6]},
             "families": {"sphere": [{"params": {"n": 20}, "seconds": 3.0, "events": 10,
                                      "horizon": 100.0}]}}
    line = cost_lines("sphere", costs)[0]
    assert "load average 0.9-1.6)" in line and "other jobs" not in line
