from django.contrib import admin

from webui.models import Run, RunSegment, Scenario, ScenarioVersion, ShareLink


class VersionInline(admin.TabularInline):
    model = ScenarioVersion
    fields = ("number", "created")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "owner", "owner_session_key", "demo_slug", "updated")
    search_fields = ("name", "description")
    inlines = [VersionInline]


@admin.register(ScenarioVersion)
class ScenarioVersionAdmin(admin.ModelAdmin):
    list_display = ("id", "scenario", "number", "created")
    # Versions are immutable: what a run or a share link points at must not change under it.
    readonly_fields = ("scenario", "number", "text", "created")


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "version", "status", "cycle", "cycles", "event_count", "attempts", "claimed_by", "heartbeat")
    list_filter = ("status",)
    readonly_fields = ("version", "event_count", "claimed_by", "heartbeat", "attempts", "started", "finished")


@admin.register(RunSegment)
class RunSegmentAdmin(admin.ModelAdmin):
    list_display = ("run", "cycle", "first_seq", "end_seq", "size")
    readonly_fields = ("run", "cycle", "first_seq", "end_seq", "size")
    exclude = ("blob",)  # binary (a NumPy .npz): read it through the API

    @admin.display(description="bytes")
    def size(self, segment: RunSegment) -> int:
        return len(segment.blob)


@admin.register(ShareLink)
class ShareLinkAdmin(admin.ModelAdmin):
    list_display = ("id", "version", "run", "step", "created", "revoked_at")
    readonly_fields = ("token",)
