
namespace Sharpi.Prefault.Tests.Models;

public sealed class TensorSelectionTests
{
    [Theory]
    [InlineData("blk.*.ffn_*_exps.weight", "blk.12.ffn_down_exps.weight", true)]
    [InlineData("blk.*.ffn_*_exps.weight", "blk.12.ffn_down_shexp.weight", false)]
    [InlineData("model.layers.*.mlp.experts.*", "model.layers.3.mlp.experts.17.up_proj.weight", true)]
    [InlineData("model.layers.*.mlp.experts.*", "model.layers.3.mlp.gate.weight", false)]
    [InlineData("blk.?.attn_q.weight", "blk.7.attn_q.weight", true)]
    [InlineData("blk.?.attn_q.weight", "blk.17.attn_q.weight", false)]
    [InlineData("*", "anything.at.all", true)]
    [InlineData("token_embd.weight", "token_embd.weight", true)]
    [InlineData("token_embd.weight", "token_embd.weight2", false)]
    [InlineData("Blk.*", "blk.0.x", false)]
    [InlineData("a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false)]
    public void GlobMatches_StarSpansDotsAndQuestionMarkIsOneCharacter(string pattern, string name, bool expected)
    {
        Assert.Equal(expected, TensorSelection.GlobMatches(pattern, name));
    }

    [Fact]
    public void Matches_WithoutIncludes_SelectsAllButTheExcluded()
    {
        var selection = new TensorSelection(exclude: ["*.bias"]);

        Assert.True(selection.Matches("blk.0.attn_q.weight"));
        Assert.False(selection.Matches("blk.0.attn_q.bias"));
    }

    [Fact]
    public void Matches_ExcludeWinsOverInclude()
    {
        var selection = new TensorSelection(include: ["blk.*"], exclude: ["blk.0.*"]);

        Assert.False(selection.Matches("blk.0.w"));
        Assert.True(selection.Matches("blk.1.w"));
        Assert.False(selection.Matches("output.weight"));
    }

    [Fact]
    public void Constructor_WithEmptyPattern_Throws()
    {
        Assert.Throws<ArgumentException>(() => new TensorSelection(include: [""]));
    }

    [Theory]
    [InlineData("blk.12.ffn_up.weight", "blk.12")]
    [InlineData("model.layers.3.mlp.experts.7.up_proj.weight", "model.layers.3")]
    [InlineData("token_embd.weight", "token_embd")]
    [InlineData("model.embed_tokens.weight", "model.embed_tokens")]
    [InlineData("output", "output")]
    public void GroupKey_IsTheNameUpToItsLayerNumber(string name, string key)
    {
        Assert.Equal(key, TensorIndex.GroupKey(name));
    }
}
