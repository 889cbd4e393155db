"""Issue 49: a capacity question's stored answer is the engine's declaration of it less its trials
(scheduler_core/answers/capacity_json.py; the API's schemas are made from those declarations). Answers
stored before are brought to it: ``explanation`` (fit, copies) was the explanation's headline, now the
engine's explanation object — an old one keeps its headline only (``{"headline": ...}``); a pod-copies
answer's ``stoppedBy`` was the copy or null, now the engine's list; a drain verdict without ``knownBy``
was known by its trial; fragmentation amounts without their text get it (format_amount, as the engine
writes them). Going back undoes the first two (the other keys were optional or ignored before).

A counted-per-domain answer stored before kept its first 100 domains and their number (domainCount);
the API now bounds the engine's whole list as it serves it, so such an answer of more than 100
domains says 100."""

from django.db import migrations

CHUNK = 200


def _declared(answer):
    answer = dict(answer)
    for kind in ("fit", "copies"):
        if isinstance(answer.get(kind), dict):
            answer[kind] = found = dict(answer[kind])
            if isinstance(found.get("explanation"), str):
                found["explanation"] = {"headline": found["explanation"]}
    copies = answer.get("copies")
    if isinstance(copies, dict) and not isinstance(copies.get("stoppedBy", []), list):
        copies["stoppedBy"] = [copies["stoppedBy"]] if copies["stoppedBy"] else []
    removable = answer.get("removable")
    if isinstance(removable, dict) and "verdicts" in removable:
        answer["removable"] = {
            **removable,
            "verdicts": [{**verdict, "knownBy": verdict.get("knownBy", "trial")} for verdict in removable["verdicts"]],
        }
    fragmentation = answer.get("fragmentation")
    if isinstance(fragmentation, dict) and "resources" in fragmentation:
        answer["fragmentation"] = {**fragmentation, "resources": [_with_texts(r) for r in fragmentation["resources"]]}
    return answer


def _with_texts(resource):
    # The engine's own formatting, through the web app's one door to the engine.
    from webui.services.engine import format_amount

    name = resource["resource"]
    stranded = [{**s, "freeText": s.get("freeText", format_amount(name, s["free"]))} for s in resource["stranded"]]
    texts = {
        f"{key}Text": resource.get(f"{key}Text", format_amount(name, resource[key]))
        for key in ("freeTotal", "largestFit", "strandedTotal")
    }
    return {**resource, "stranded": stranded, **texts}


def _before(answer):
    answer = dict(answer)
    for kind in ("fit", "copies"):
        if isinstance(answer.get(kind), dict):
            answer[kind] = found = dict(answer[kind])
            if isinstance(found.get("explanation"), dict):
                found["explanation"] = found["explanation"].get("headline")
    copies = answer.get("copies")
    if isinstance(copies, dict) and isinstance(copies.get("stoppedBy"), list):
        copies["stoppedBy"] = copies["stoppedBy"][0] if copies["stoppedBy"] else None
    return answer


def _rewrite(apps, change):
    CapacityQuestion = apps.get_model("webui", "CapacityQuestion")
    stored = CapacityQuestion.objects.filter(answer__isnull=False).only("pk", "answer")
    for question in stored.iterator(chunk_size=CHUNK):
        answer = change(question.answer)
        if answer != question.answer:
            CapacityQuestion.objects.filter(pk=question.pk).update(answer=answer)


def to_declared(apps, schema_editor):
    _rewrite(apps, _declared)


def to_before(apps, schema_editor):
    _rewrite(apps, _before)


class Migration(migrations.Migration):
    dependencies = [
        ("webui", "0011_releases_and_upgrades"),
    ]

    operations = [
        migrations.RunPython(to_declared, to_before, elidable=False),
    ]
